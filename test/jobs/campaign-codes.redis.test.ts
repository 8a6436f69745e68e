// Campaign options of dynamic codes in Redis mode (scan limits and password guesses counted in Redis, routing cached
// with the slug).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { campaignSuite } from '../helpers/campaign-suite.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';

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

campaignSuite('Redis mode', () => t);
