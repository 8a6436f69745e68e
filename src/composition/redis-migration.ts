// `qrm redis migrate-keys`: opens Redis alone (no store) and moves the earlier key layout's contents into today's.
import { closeRedisClient, createRedisClient, settleConnection } from '../adapters/redis/connection.js';
import { migrateLegacyLayout, type LegacyMigration } from '../adapters/redis/legacy-layout.redis.js';
import { ConfigError, type Config } from '../config.js';

export async function migrateRedisKeys(config: Pick<Config, 'redis'>, keyPrefix?: string): Promise<LegacyMigration> {
  if (!config.redis) throw new ConfigError('REDIS_URL: redis migrate-keys moves keys within the Redis it names');
  // A long SCAN or a large account's move may take longer than a request's command ceiling.
  const client = createRedisClient(config.redis, { name: 'qrm-migrate-keys', commandTimeoutMs: 60_000 });
  try {
    if (!(await settleConnection(client, 5_000))) throw new Error('redis unreachable');
    return await migrateLegacyLayout(client, keyPrefix);
  } finally {
    await closeRedisClient(client);
  }
}
