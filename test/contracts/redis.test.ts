// Runs the port contracts against the Redis adapters, on a real redis-server started for this file; every case has its
// own key prefix.
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../../src/adapters/redis/connection.js';
import { afterAll, beforeAll } from 'vitest';
import type { StoreAdapters } from '../../src/adapters/contract.js';
import { createSqliteStores } from '../../src/adapters/sqlite/sqlite-stores.js';
import { PlanChangePublishingAccountStore } from '../../src/adapters/account-store.plan-events.js';
import { closeRedisClient, createRedisClient, settleConnection } from '../../src/adapters/redis/connection.js';
import { RedisInvalidationBus } from '../../src/adapters/redis/invalidation-bus.redis.js';
import { CachedKeyStore } from '../../src/adapters/key-store.cached.js';
import { RedisLastUsedLog } from '../../src/adapters/redis/last-used-log.redis.js';
import { RedisUsageCounters } from '../../src/adapters/redis/usage-counters.redis.js';
import { RedisUsageMeter } from '../../src/adapters/redis/usage-meter.redis.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { CachedDynamicCodeStore } from '../../src/adapters/dynamic-code-store.cached.js';
import { RedisScanCounter } from '../../src/adapters/redis/scan-counter.redis.js';
import { rollupScans } from '../../src/services/rollup-scans.js';
import { accountStoreContract } from './account-store.contract.js';
import { dynamicCodeStoreContract } from './dynamic-code-store.contract.js';
import { scanEventSourceContract } from './scan-events.contract.js';
import { RedisScanEventSource } from '../../src/adapters/redis/scan-event-source.redis.js';
import { guessLimiterContract, scanAllowanceContract } from './scan-allowance.contract.js';
import { RedisGuessLimiter } from '../../src/adapters/redis/guess-limiter.redis.js';
import { RedisScanAllowance } from '../../src/adapters/redis/scan-allowance.redis.js';
import { scanRecorderContract } from './scan-ledger.contract.js';
import { keyStoreContract } from './key-store.contract.js';
import { signingKeyStoreContract } from './signing-key-store.contract.js';
import { CachedSigningKeyStore } from '../../src/adapters/signing-key-store.cached.js';
import { lastUsedLogContract } from './last-used-log.contract.js';
import { usageCountersContract } from './usage-counters.contract.js';
import { usageMeterContract } from './usage-meter.contract.js';

let server: RedisServer;
let client: RedisClient;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  server = await startRedisServer();
  client = createRedisClient(server.url, { name: 'contract-tests' });
  await settleConnection(client);
});
afterAll(async () => {
  for (const close of closers.splice(0)) await close();
  await closeRedisClient(client);
  await server.destroy();
});

const prefix = () => `t-${randomUUID()}:`;

function sqlite(): StoreAdapters {
  const stores = createSqliteStores(':memory:');
  closers.push(() => stores.close());
  return stores;
}

function bus(keyPrefix: string): RedisInvalidationBus {
  const made = new RedisInvalidationBus(client, server.url, { keyPrefix });
  closers.push(() => made.close());
  return made;
}

usageMeterContract('redis', () => {
  const meter = new RedisUsageMeter(client, { keyPrefix: prefix() });
  closers.push(() => meter.close());
  return meter;
});

usageCountersContract('redis', async () => {
  const keyPrefix = prefix();
  const meter = new RedisUsageMeter(client, { keyPrefix });
  closers.push(() => meter.close());
  return { meter, counters: new RedisUsageCounters(client, { keyPrefix }) };
});

keyStoreContract('sqlite + redis credential cache', async () => {
  const stores = sqlite();
  return { accounts: stores.accounts, keys: new CachedKeyStore(stores.keys, bus(prefix())) };
});

signingKeyStoreContract('sqlite + redis signing-key cache', async () => {
  const stores = sqlite();
  return { accounts: stores.accounts, signingKeys: new CachedSigningKeyStore(stores.signingKeys, bus(prefix())) };
});

accountStoreContract(
  'sqlite + redis plan-change events',
  () => new PlanChangePublishingAccountStore(sqlite().accounts, bus(prefix())),
);

lastUsedLogContract(
  'redis',
  () => {
    const keyPrefix = prefix();
    const logs = [0, 1, 2].map(() => new RedisLastUsedLog(client, { keyPrefix, pushEveryMs: 60_000 }));
    closers.push(...logs.map((log) => () => log.close()));
    return logs;
  },
  { sharedAcrossProcesses: true },
);

dynamicCodeStoreContract('sqlite + redis slug cache', async () => {
  const stores = createSqliteStores(':memory:', { cacheSlugs: false });
  closers.push(() => stores.close());
  return { accounts: stores.accounts, codes: new CachedDynamicCodeStore(stores.codes, bus(prefix())) };
});

scanAllowanceContract('redis', () => new RedisScanAllowance(client, { keyPrefix: prefix() }));
guessLimiterContract('redis', () => new RedisGuessLimiter(client, { keyPrefix: prefix() }));
scanEventSourceContract('redis (counted in the scan script)', async () => {
  const keyPrefix = prefix();
  return {
    recorder: new RedisScanCounter(client, { keyPrefix }),
    events: new RedisScanEventSource(client, { keyPrefix }),
  };
});

// Recorded in Redis, then rolled up into a SQLite ledger: the path production takes.
scanRecorderContract(
  'redis (HyperLogLog) + rollup',
  async () => {
    const counter = new RedisScanCounter(client, { keyPrefix: prefix() });
    const scanLedger = sqlite().scanLedger;
    return {
      recorder: counter,
      async read(codeId, day) {
        await rollupScans({ scanCounters: counter, scanLedger });
        return (await scanLedger.days(codeId, day, day))[0];
      },
    };
  },
  1,
);
