// createStores: picks each store by its own variable — REDIS_URL adds Redis metering, cache and jobs; MONGODB_URL the
// MongoDB store.
import type { AdapterLog } from '../adapters/adapter-log.js';
import type { StoreAdapters } from '../adapters/contract.js';
import { createSqliteStores } from '../adapters/sqlite/sqlite-stores.js';
import type { Config } from '../config.js';

export interface StoreOptions {
  log?: AdapterLog;
  /** Prefix of every Redis key (default `qrm:`); tests sharing one server give each case its own. */
  redisKeyPrefix?: string;
  /** MongoDB database name, overriding the URL's (tests use a fresh one). */
  mongoDbName?: string;
  /**
   * TTL of the per-instance credential, signing-key and slug caches, the ceiling should an invalidation be missed
   * (tests proving the push hold them longer than they run).
   */
  cacheTtlMs?: number;
}

/**
 * The stores for this configuration (loadConfig has refused MONGODB_URL without REDIS_URL):
 * - nothing set: the embedded default, SQLite for everything, jobs in the API process;
 * - REDIS_URL (or REDIS_CLUSTER_NODES, a cluster): Redis metering, credential cache, sessions and last-used log over
 *   the SQLite store; jobs on BullMQ;
 * - REDIS_URL + MONGODB_URL: the same over MongoDB, batches in MongoDB and their results in GridFS (no shared volume
 *   needed).
 * Redis and MongoDB code is loaded only when configured, so the embedded default starts without it.
 */
export async function createStores(
  config: Pick<Config, 'dataDir' | 'redis' | 'mongodbUrl'>,
  options: StoreOptions = {},
): Promise<StoreAdapters> {
  const sqliteLog = options.log ? { log: options.log } : {};
  if (!config.redis) return createSqliteStores(config.dataDir, sqliteLog);
  let records;
  if (config.mongodbUrl) {
    const { createMongoStores } = await import('../adapters/mongo/mongo-stores.js');
    records = await createMongoStores(config.mongodbUrl, options.mongoDbName ? { dbName: options.mongoDbName } : {});
  } else {
    records = createSqliteStores(config.dataDir, { cacheSlugs: false, cacheCredentials: false, ...sqliteLog });
  }
  try {
    const { createRedisStores } = await import('../adapters/redis/redis-stores.js');
    return await createRedisStores(records, config.redis, {
      ...(options.log ? { log: options.log } : {}),
      ...(options.redisKeyPrefix ? { keyPrefix: options.redisKeyPrefix } : {}),
      ...(options.cacheTtlMs === undefined ? {} : { cacheTtlMs: options.cacheTtlMs }),
    });
  } catch (error) {
    await records.close();
    throw error;
  }
}
