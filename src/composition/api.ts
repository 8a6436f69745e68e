// The API process's composition root: every adapter it runs on (stores, renderer, sign-in providers) built from config.
import type { AdapterLog } from '../adapters/adapter-log.js';
import type { Adapters, StoreAdapters } from '../adapters/index.js';
import { createRenderer, rendererProbe } from '../adapters/render/create-renderer.js';
import type { Config } from '../config.js';
import type { Renderer } from '../domain/ports/renderer.js';
import { discoverSignIns } from './sign-in.js';
import { createStores, type StoreOptions } from './stores.js';

/** What a test may put in place of what config would build; whatever is given here is still closed by the app. */
export interface ApiOverrides extends Omit<StoreOptions, 'log'> {
  /** Stores made by the caller (e.g. over a SQLite connection a test fills up). */
  stores?: StoreAdapters;
  /** A render pool made by the caller (e.g. on a thread that crashes), used in place of the configured render path. */
  renderer?: Renderer;
  /** Deadline for each provider's OIDC discovery at start-up (default 5 s). */
  discoveryTimeoutMs?: number;
}

export async function createApiAdapters(config: Config, log: AdapterLog, overrides: ApiOverrides = {}): Promise<Adapters> {
  const stores = overrides.stores ?? (await createStores(config, { log, ...overrides }));
  try {
    const { renderer, probe } = overrides.renderer ? { renderer: overrides.renderer, probe: rendererProbe(overrides.renderer) } : createRenderer(config, log);
    const signIn = await discoverSignIns(config, log, overrides.discoveryTimeoutMs);
    return {
      ...stores,
      renderer,
      signIn,
      probes: { ...stores.probes, renderer: probe },
      async close() {
        await renderer.close();
        await stores.close();
      },
    };
  } catch (error) {
    await stores.close();
    throw error;
  }
}
