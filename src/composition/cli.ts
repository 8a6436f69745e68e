// The qrm command's composition root: the same stores as the server, built from the same config, and the services' dependencies.
import type { StoreAdapters } from '../adapters/index.js';
import type { Config } from '../config.js';
import { createStores } from './stores.js';

export interface CliAdapters {
  stores: StoreAdapters;
  /** What the account and key services take: the stores, the key pepper and the wall clock. */
  deps: StoreAdapters & { keyPepper: string | undefined; clock: () => Date };
  close(): Promise<void>;
}

/** In production a revocation made here is pushed to every API instance, as one made in the portal is. */
export async function createCliAdapters(config: Config): Promise<CliAdapters> {
  const stores = await createStores(config);
  return { stores, deps: { ...stores, keyPepper: config.keyPepper, clock: () => new Date() }, close: () => stores.close() };
}
