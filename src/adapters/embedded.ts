// The embedded default: SQLite for records and metering, a Piscina pool for rendering. No other software.
import type { Config } from '../config.js';
import type { AccountStore } from '../domain/ports/account-store.js';
import type { KeyStore } from '../domain/ports/key-store.js';
import type { Renderer } from '../domain/ports/renderer.js';
import type { UsageMeter } from '../domain/ports/usage-meter.js';
import { RenderPool } from './render/render-pool.piscina.js';
import { SqliteAccountStore } from './sqlite/account-store.sqlite.js';
import { openDatabase } from './sqlite/database.js';
import { SqliteKeyStore } from './sqlite/key-store.sqlite.js';
import { unavailableOnFailure } from './sqlite/unavailable-on-failure.js';
import { SqliteUsageMeter } from './sqlite/usage-meter.sqlite.js';

/** Everything the services need from the outside world, and the one way to release it. */
export interface Adapters {
  accounts: AccountStore;
  keys: KeyStore;
  meter: UsageMeter;
  renderer: Renderer;
  /** One check per dependency, for /readyz: each resolves when the dependency answers and throws when it does not. */
  probes: Record<string, () => Promise<void>>;
  close(): Promise<void>;
}

export type StoreAdapters = Omit<Adapters, 'renderer'>;

/** Probe for a render pool: a one-module render proves a thread is up and answering. */
export function rendererProbe(renderer: Renderer): () => Promise<void> {
  return async () => {
    await renderer.render({ payload: 'ready', format: 'svg', size: 64, margin: 0, errorCorrection: 'L', darkColor: '#000000ff', lightColor: '#ffffffff' });
  };
}

export function createSqliteStores(dataDir: string | ':memory:'): StoreAdapters {
  const db = openDatabase(dataDir);
  return {
    accounts: unavailableOnFailure(new SqliteAccountStore(db)),
    keys: unavailableOnFailure(new SqliteKeyStore(db)),
    meter: unavailableOnFailure(new SqliteUsageMeter(db)),
    probes: {
      sqlite: async () => {
        db.prepare('SELECT 1').get();
      },
    },
    async close() {
      db.close();
    },
  };
}

export function createEmbeddedAdapters(config: Pick<Config, 'dataDir' | 'renderThreads' | 'renderMaxQueue'>): Adapters {
  const stores = createSqliteStores(config.dataDir);
  const renderer = new RenderPool({ threads: config.renderThreads, maxQueue: config.renderMaxQueue });
  return {
    ...stores,
    renderer,
    probes: { ...stores.probes, renderer: rendererProbe(renderer) },
    async close() {
      await renderer.close();
      await stores.close();
    },
  };
}
