// The app of a scan suite in Redis mode: a redis-server of the file's own, the app on it under a random key prefix,
// and the two steps the suites drive (flush the buffered scans; flush and roll them up into the system of record).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { rollupScans } from '../../src/services/rollup-scans.js';
import { createTestApp, type TestApp } from './app.js';
import { startRedisServer, type RedisServer } from './redis-server.js';

export interface RedisScanApp {
  t: TestApp;
  /** The scans answered so far are in Redis. */
  flush(): Promise<void>;
  /** The scans answered so far are in Redis and rolled up into the system of record. */
  settle(): Promise<void>;
}

/** Call at the top of a test file; read the answer inside hooks and tests. */
export function useRedisScanApp(env: Record<string, string> = {}): () => RedisScanApp {
  let redis: RedisServer;
  let t: TestApp;
  beforeAll(async () => {
    redis = await startRedisServer();
    t = await createTestApp({ redis: { url: redis.url, keyPrefix: `t-${randomUUID()}:` }, env });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await redis?.destroy();
  });
  return () => ({
    t,
    flush: () => t.stores.scans.flush(),
    settle: async () => {
      await t.stores.scans.flush();
      await rollupScans(t.stores);
    },
  });
}
