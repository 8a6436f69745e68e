// Custom domains and vanity slugs in Redis mode (vanity lookups cached with the slugs, dropped on every change; scans
// counted in Redis, rolled up).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { bindJobs } from '../../src/services/background-jobs.js';
import { LastUsedBuffer } from '../../src/services/last-used-buffer.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { codesApi } from '../helpers/codes.js';
import { customDomainSuite, loopbackProbe, SERVICE_URL } from '../helpers/custom-domain-suite.js';
import { startDnsServer, type DnsServer } from '../helpers/dns-server.js';
import { freePort } from '../helpers/processes.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';

let redis: RedisServer;
let t: TestApp;
let port: number;
let dns: DnsServer;

beforeAll(async () => {
  redis = await startRedisServer();
  port = await freePort();
  dns = await startDnsServer();
  t = await createTestApp({
    redis: { url: redis.url, keyPrefix: `t-${randomUUID()}:` },
    env: { PUBLIC_URL: SERVICE_URL, DNS_SERVERS: dns.address, WEBHOOK_ALLOW_PRIVATE: 'true' },
    domainProbe: loopbackProbe(port),
  });
  await t.app.listen({ port, host: '127.0.0.1' });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await dns?.close();
  await redis?.destroy();
});

customDomainSuite('Redis mode', () => ({
  t,
  port,
  dns,
  async countedScans(key, codeId) {
    // What the worker does every minute: the scans counted in Redis into the ledger the statistics read.
    await t.stores.scans.flush();
    await bindJobs({ ...t.stores, lastUsed: new LastUsedBuffer(), clock: () => t.clock.now })
      .find((job) => job.name === 'scan-rollup')!
      .run();
    return ((await codesApi(t.app, key).stats(codeId)).json() as { totals: { scans: number } }).totals.scans;
  },
}));
