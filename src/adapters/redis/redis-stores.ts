// Production mode's Redis layer over a system of record: metering, credential cache, last-used log, sessions and the
// rollup's counters.
import type { RecordStores, StoreAdapters } from '../contract.js';
import { unavailableWhen } from '../unavailable-when.js';
import { PlanChangePublishingAccountStore } from '../account-store.plan-events.js';
import {
  closeRedisClient,
  createRedisClient,
  isRedisOutage,
  redisHealth,
  settleConnection,
  type AdapterLog,
  type RedisTarget,
} from './connection.js';
import { CachedDynamicCodeStore } from '../dynamic-code-store.cached.js';
import { CachedScanPrivacy } from '../scan-privacy.cached.js';
import { RedisInvalidationBus } from './invalidation-bus.redis.js';
import { CachedKeyStore } from '../key-store.cached.js';
import { CachedSigningKeyStore } from '../signing-key-store.cached.js';
import { RedisLastUsedLog } from './last-used-log.redis.js';
import { RedisGuessLimiter } from './guess-limiter.redis.js';
import { RedisScanAllowance } from './scan-allowance.redis.js';
import { RedisScanEventSource } from './scan-event-source.redis.js';
import { RedisScanCounter } from './scan-counter.redis.js';
import { RedisSessionStore } from './session-store.redis.js';
import { RedisUsageCounters } from './usage-counters.redis.js';
import { RedisUsageMeter } from './usage-meter.redis.js';

export interface RedisStoresOptions {
  /** Prefix of every key this layer writes, ending with its separator (default `qrm:`); tests use a random one. */
  keyPrefix?: string;
  log?: AdapterLog;
  /**
   * TTL of every per-instance cache, the ceiling should an invalidation be missed (defaults: credentials and signing
   * keys 10 s, slugs 60 s).
   */
  cacheTtlMs?: number;
}

const DOWN = 'the service cannot reach its data store right now; retry shortly';

/**
 * Owns the Redis connections it opens (to one Redis or a cluster) and closes them, then the system of record, in
 * close().
 */
export async function createRedisStores(
  records: RecordStores,
  target: RedisTarget | string,
  options: RedisStoresOptions = {},
): Promise<StoreAdapters> {
  const keyPrefix = options.keyPrefix ?? 'qrm:';
  const log = options.log;
  const redis = createRedisClient(target, { name: 'qrm-commands', ...(log ? { log } : {}) });
  // A service may start while Redis is down: it answers 503 until Redis is there, then recovers by itself.
  await settleConnection(redis);

  const bus = new RedisInvalidationBus(redis, target, { keyPrefix, ...(log ? { log } : {}) });
  const meter = new RedisUsageMeter(redis, { keyPrefix, archive: records.usageLedger, ...(log ? { log } : {}) });
  const lastUsed = new RedisLastUsedLog(redis, { keyPrefix });
  const scans = new RedisScanCounter(redis, { keyPrefix });
  const cached = options.cacheTtlMs === undefined ? {} : { ttlMs: options.cacheTtlMs };
  const keys = new CachedKeyStore(records.keys, bus, cached);
  const scanPrivacy = new CachedScanPrivacy(records.accounts, bus, cached);

  return {
    accounts: unavailableWhen(
      new PlanChangePublishingAccountStore(records.accounts, bus, (id) => scanPrivacy.forget(id)),
      isRedisOutage,
      DOWN,
    ),
    keys: unavailableWhen(keys, isRedisOutage, DOWN),
    signingKeys: unavailableWhen(new CachedSigningKeyStore(records.signingKeys, bus, cached), isRedisOutage, DOWN),
    meter: unavailableWhen(meter, isRedisOutage, DOWN),
    sessions: unavailableWhen(
      new RedisSessionStore(redis, { keyPrefix }),
      isRedisOutage,
      'sessions are not available right now; retry shortly',
    ),
    usageLedger: records.usageLedger,
    logos: records.logos,
    designs: records.designs,
    auditLog: records.auditLog,
    members: records.members,
    // Slug lookups read the system of record (or, failing that, the cache) while Redis is down; only publishing a
    // change needs Redis.
    codes: unavailableWhen(new CachedDynamicCodeStore(records.codes, bus, cached), isRedisOutage, DOWN),
    domains: records.domains,
    scanLedger: records.scanLedger,
    scans,
    scanPrivacy,
    scanCounters: scans,
    scanAllowance: unavailableWhen(new RedisScanAllowance(redis, { keyPrefix }), isRedisOutage, DOWN),
    guesses: unavailableWhen(new RedisGuessLimiter(redis, { keyPrefix }), isRedisOutage, DOWN),
    scanWebhooks: records.scanWebhooks,
    scanEvents: new RedisScanEventSource(redis, { keyPrefix }),
    ...(records.batches && records.batchResults
      ? { batches: records.batches, batchResults: records.batchResults }
      : {}),
    usageCounters: new RedisUsageCounters(redis, { keyPrefix, ...(log ? { log } : {}) }),
    lastUsed,
    rateLimitStore: { redis, nameSpace: `${keyPrefix}ratelimit:` },
    jobs: 'jobs-process',
    probes: {
      ...records.probes,
      // On a cluster: its state is ok and every master answers.
      redis: () => redisHealth(redis),
    },
    async close() {
      await meter.close();
      await scans.close();
      await lastUsed.close();
      await bus.close();
      await closeRedisClient(redis);
      await records.close();
    },
  };
}
