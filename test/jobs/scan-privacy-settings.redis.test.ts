// Scan privacy settings and DNT / Sec-GPC in Redis mode: counted in Redis, read after the rollup; see
// scan-privacy-suite.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { rollupScans } from '../../src/services/rollup-scans.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { scanPrivacySuite } from '../helpers/scan-privacy-suite.js';

let redis: RedisServer;
let t: TestApp;

beforeAll(async () => {
  redis = await startRedisServer();
  t = await createTestApp({ redis: { url: redis.url, keyPrefix: `t-${randomUUID()}:` }, env: { TRUST_PROXY: '1' } });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await redis?.destroy();
});

scanPrivacySuite('Redis mode', () => ({
  t,
  settle: async () => {
    await t.stores.scans.flush();
    await rollupScans(t.stores);
  },
}));
