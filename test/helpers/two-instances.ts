// Two API instances sharing one real redis-server and one data directory: the production shape, inside one test.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, type TestApp, type TestAppOptions } from './app.js';
import { startRedisServer, type RedisServer } from './redis-server.js';
import { waitFor } from './wait.js';

export interface TwoInstances {
  redis: RedisServer;
  dataDir: string;
  a: TestApp;
  b: TestApp;
  close(): Promise<void>;
}

/**
 * Both apps get the same options, the same Redis key prefix (fresh per call) and the same SQLite directory.
 * `cacheTtlMs` replaces the per-instance caches' TTL (credentials, signing keys, slugs): a test proving that a change
 * is pushed sets it longer than the test runs.
 */
export async function startTwoInstancesOnRedis(
  name: string,
  { cacheTtlMs, ...options }: Omit<TestAppOptions, 'dataDir' | 'redis'> & { cacheTtlMs?: number } = {},
): Promise<TwoInstances> {
  const redis = await startRedisServer();
  const dataDir = await mkdtemp(join(tmpdir(), `qrm-${name}-`));
  // One stopped clock for both: apps started in different seconds would otherwise count bursts in different windows.
  const shared = {
    ...options,
    now: options.now ?? new Date(),
    dataDir,
    redis: { url: redis.url, keyPrefix: `t-${randomUUID()}:`, ...(cacheTtlMs ? { cacheTtlMs } : {}) },
  };
  const a = await createTestApp(shared);
  const b = await createTestApp(shared);
  return {
    redis,
    dataDir,
    a,
    b,
    async close() {
      await a.close();
      await b.close();
      await redis.destroy();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Resolves once both instances answer /readyz 200 again (Redis back and their clients reconnected). */
export async function untilBothReachRedis(a: TestApp, b: TestApp): Promise<void> {
  await waitFor(
    'both instances to reach Redis again',
    async () => {
      const [ra, rb] = await Promise.all([
        a.app.inject({ method: 'GET', url: '/readyz' }),
        b.app.inject({ method: 'GET', url: '/readyz' }),
      ]);
      return ra.statusCode === 200 && rb.statusCode === 200;
    },
    { timeoutMs: 10_000, intervalMs: 50 },
  );
}
