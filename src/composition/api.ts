// The API process's composition root: every adapter it runs on (stores, renderer, sign-in providers) built from config.
import type { AdapterLog } from '../adapters/adapter-log.js';
import type { Adapters, StoreAdapters } from '../adapters/index.js';
import { createRenderPipeline, type RenderPipelineDeps } from '../adapters/render/render-pipeline.js';
import type { Config } from '../config.js';
import { loadPlanCatalogue } from '../plans-file.js';
import { discoverSignIns } from './sign-in.js';
import { signingSealOf } from './signing-seal.js';
import { createStores, type StoreOptions } from './stores.js';

/** What a test may put in place of what config would build; whatever is given here is still closed by the app. */
export interface ApiOverrides extends Omit<StoreOptions, 'log'> {
  /** Stores made by the caller (e.g. over a SQLite connection a test fills up). */
  stores?: StoreAdapters;
  /** Render-pool settings only a fault test needs (a thread entry that crashes, a small heap); the rest of the pipeline is as configured. */
  renderPool?: RenderPipelineDeps['pool'];
  /** Deadline for each provider's OIDC discovery at start-up (default 5 s). */
  discoveryTimeoutMs?: number;
}

export async function createApiAdapters(config: Config, log: AdapterLog, overrides: ApiOverrides = {}): Promise<Adapters> {
  // The plans file is read before anything opens: a mistake in it stops start-up at once.
  const plans = loadPlanCatalogue(config.plansFile);
  const stores = overrides.stores ?? (await createStores(config, { log, ...overrides }));
  try {
    const renderer = createRenderPipeline(config, { log, plans, ...(overrides.renderPool ? { pool: overrides.renderPool } : {}) });
    const signIn = await discoverSignIns(config, log, overrides.discoveryTimeoutMs);
    return {
      ...stores,
      plans,
      renderer,
      signIn,
      signingSeal: signingSealOf(config),
      probes: { ...stores.probes, renderer: () => renderer.probe() },
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
