// Scan retention in Redis mode: counted in Redis, rolled up, then swept in the store; see scan-retention-suite.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { rollupScans } from '../../src/services/rollup-scans.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { scanRetentionSuite } from '../helpers/scan-retention-suite.js';

let redis: RedisServer;
let t: TestApp;

beforeAll(async () => {
  redis = await startRedisServer();
  t = await createTestApp({ redis: { url: redis.url, keyPrefix: `t-${randomUUID()}:` } });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await redis?.destroy();
});

scanRetentionSuite('Redis mode', () => ({
  t,
  settle: async () => {
    await t.stores.scans.flush();
    await rollupScans(t.stores);
  },
}));
