// Registers the contracts of the adapters that live in Redis alone, for a single redis-server and a Redis Cluster.
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../../src/adapters/redis/connection.js';
import { RedisGuessLimiter } from '../../src/adapters/redis/guess-limiter.redis.js';
import { RedisLastUsedLog } from '../../src/adapters/redis/last-used-log.redis.js';
import { RedisScanAllowance } from '../../src/adapters/redis/scan-allowance.redis.js';
import { RedisScanCounter } from '../../src/adapters/redis/scan-counter.redis.js';
import { RedisScanEventSource } from '../../src/adapters/redis/scan-event-source.redis.js';
import { RedisUsageCounters } from '../../src/adapters/redis/usage-counters.redis.js';
import { RedisUsageMeter } from '../../src/adapters/redis/usage-meter.redis.js';
import { createSqliteStores } from '../../src/adapters/sqlite/sqlite-stores.js';
import { rollupScans } from '../../src/services/rollup-scans.js';
import { lastUsedLogContract } from './last-used-log.contract.js';
import { guessLimiterContract, scanAllowanceContract } from './scan-allowance.contract.js';
import { scanEventSourceContract } from './scan-events.contract.js';
import { scanRecorderContract } from './scan-ledger.contract.js';
import { usageCountersContract } from './usage-counters.contract.js';
import { usageMeterContract } from './usage-meter.contract.js';

/** A key prefix of its own for each case, so that cases sharing one Redis never see each other's keys. */
export const casePrefix = (): string => `t-${randomUUID()}:`;

/**
 * Registers the contracts under `label` on the client `client()` returns (read when a case runs, after the file's
 * beforeAll connected it); what a case opens is pushed on `closers`, for the file's afterAll to close.
 */
export function redisAdapterContracts(
  label: string,
  client: () => RedisClient,
  closers: Array<() => Promise<void>>,
): void {
  usageMeterContract(label, () => {
    const meter = new RedisUsageMeter(client(), { keyPrefix: casePrefix() });
    closers.push(() => meter.close());
    return meter;
  });

  usageCountersContract(label, async () => {
    const keyPrefix = casePrefix();
    const meter = new RedisUsageMeter(client(), { keyPrefix });
    closers.push(() => meter.close());
    return { meter, counters: new RedisUsageCounters(client(), { keyPrefix }) };
  });

  lastUsedLogContract(
    label,
    () => {
      const keyPrefix = casePrefix();
      const logs = [0, 1, 2].map(() => new RedisLastUsedLog(client(), { keyPrefix, pushEveryMs: 60_000 }));
      closers.push(...logs.map((log) => () => log.close()));
      return logs;
    },
    { sharedAcrossProcesses: true },
  );

  scanAllowanceContract(label, () => new RedisScanAllowance(client(), { keyPrefix: casePrefix() }));
  guessLimiterContract(label, () => new RedisGuessLimiter(client(), { keyPrefix: casePrefix() }));
  scanEventSourceContract(`${label} (counted in the scan script)`, async () => {
    const keyPrefix = casePrefix();
    return {
      recorder: new RedisScanCounter(client(), { keyPrefix }),
      events: new RedisScanEventSource(client(), { keyPrefix }),
    };
  });

  // Recorded in Redis, then rolled up into a SQLite ledger: the path production takes.
  scanRecorderContract(
    `${label} (HyperLogLog) + rollup`,
    async () => {
      const counter = new RedisScanCounter(client(), { keyPrefix: casePrefix() });
      const stores = createSqliteStores(':memory:');
      closers.push(() => stores.close());
      return {
        recorder: counter,
        async read(codeId, day) {
          await rollupScans({ scanCounters: counter, scanLedger: stores.scanLedger });
          return (await stores.scanLedger.days(codeId, day, day))[0];
        },
      };
    },
    1,
  );
}
