// createAdapters: picks each adapter by its own variable — REDIS_URL adds Redis metering, cache and jobs; MONGODB_URL the MongoDB store.
import { type Config, ConfigError } from '../config.js';
import type { AdapterLog } from './adapter-log.js';
import { createSqliteStores, type Adapters, type StoreAdapters } from './embedded.js';
import { createRenderer, type RendererConfig } from './render/create-renderer.js';

export interface CreateAdaptersOptions {
  log?: AdapterLog;
  /** Prefix of every Redis key (default `qrm:`); tests sharing one server give each case its own. */
  redisKeyPrefix?: string;
  /** MongoDB database name, overriding the URL's (tests use a fresh one). */
  mongoDbName?: string;
}

type StoreConfig = Pick<Config, 'dataDir' | 'redisUrl' | 'mongodbUrl'>;

/**
 * The stores for this configuration, without a render pool (the CLI and the worker process need none):
 * - nothing set: the embedded default, SQLite for everything, jobs in the API process;
 * - REDIS_URL: Redis metering, credential cache, sessions and last-used log over the SQLite store; jobs on BullMQ;
 * - REDIS_URL + MONGODB_URL: the same over MongoDB.
 * Redis and MongoDB code is loaded only when configured, so the embedded default starts without it.
 */
export async function createStores(config: StoreConfig, options: CreateAdaptersOptions = {}): Promise<StoreAdapters> {
  if (!config.redisUrl) {
    if (config.mongodbUrl) throw new ConfigError('MONGODB_URL: needs REDIS_URL as well (production metering and jobs run on Redis)');
    return createSqliteStores(config.dataDir);
  }
  let records;
  if (config.mongodbUrl) {
    const { createMongoStores } = await import('./mongo/mongo-stores.js');
    records = await createMongoStores(config.mongodbUrl, options.mongoDbName ? { dbName: options.mongoDbName } : {});
  } else {
    records = createSqliteStores(config.dataDir, { cacheSlugs: false });
  }
  try {
    const { createRedisStores } = await import('./redis/redis-stores.js');
    return await createRedisStores(records, config.redisUrl, {
      ...(options.log ? { log: options.log } : {}),
      ...(options.redisKeyPrefix ? { keyPrefix: options.redisKeyPrefix } : {}),
    });
  } catch (error) {
    await records.close();
    throw error;
  }
}

/** The stores plus a render pool: what the API process runs on. */
export async function createAdapters(config: StoreConfig & RendererConfig, options: CreateAdaptersOptions = {}): Promise<Adapters> {
  const stores = await createStores(config, options);
  const { renderer, probe } = createRenderer(config, options.log);
  return {
    ...stores,
    renderer,
    probes: { ...stores.probes, renderer: probe },
    async close() {
      await renderer.close();
      await stores.close();
    },
  };
}
