// The qrm command's composition root: the same stores as the server, built from the same config, and the services' dependencies.
import type { StoreAdapters } from '../adapters/contract.js';
import type { Config } from '../config.js';
import type { PlanCatalogue } from '../domain/plan-catalogue.js';
import { loadPlanCatalogue } from '../plans-file.js';
import { createStores } from './stores.js';

export interface CliAdapters {
  stores: StoreAdapters;
  /** QR_PLANS_FILE's plans, or the built-in ones. */
  plans: PlanCatalogue;
  /** What the account and key services take: the stores, the key pepper, the wall clock and the plans. */
  deps: StoreAdapters & { keyPepper: string | undefined; clock: () => Date; plans: PlanCatalogue };
  close(): Promise<void>;
}

/** In production a revocation made here is pushed to every API instance, as one made in the portal is. */
export async function createCliAdapters(config: Config): Promise<CliAdapters> {
  // Read before anything opens: a mistake in the plans file stops qrm before it touches a store.
  const plans = loadPlanCatalogue(config.plansFile);
  const stores = await createStores(config);
  return { stores, plans, deps: { ...stores, keyPepper: config.keyPepper, clock: () => new Date(), plans }, close: () => stores.close() };
}
