// Redis stopped mid-traffic: the API answers 503 with Retry-After (never a hang, never a 500) and recovers by itself, counting every success once.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodOf } from '../../src/domain/period.js';
import { createTestApp, generate, type TestApp } from '../helpers/app.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';

let redis: RedisServer;
let t: TestApp;

beforeAll(async () => {
  redis = await startRedisServer();
  t = await createTestApp({ redis: { url: redis.url, keyPrefix: `t-${randomUUID()}:` }, pool: { threads: 1, maxQueue: 1_000 } });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await redis?.destroy();
});

const body = (i: number) => ({ content: `outage ${i % 3}`, type: 'text', outputFormat: 'png', size: 64 });

describe('Redis outage', () => {
  it('answers 503 unavailable while Redis is down, recovers by itself, and loses or doubles no usage', async () => {
    const caller = await t.newCaller('pro');
    const statuses: number[] = [];
    const send = async (i: number) => {
      const res = await generate(t.app, caller.key, body(i));
      statuses.push(res.statusCode);
      return res;
    };

    for (let i = 0; i < 5; i++) expect((await send(i)).statusCode).toBe(200);

    // Traffic keeps coming while Redis shuts down: some requests land before, some during, some after.
    const inFlight = Array.from({ length: 60 }, (_, i) => new Promise((r) => setTimeout(r, i * 5)).then(() => send(100 + i)));
    await new Promise((r) => setTimeout(r, 50));
    await redis.stop();
    await Promise.all(inFlight);

    // Down: each request is answered at once with a 503 and Retry-After, never a 500 and never a hang.
    for (let i = 0; i < 5; i++) {
      const started = Date.now();
      const res = await send(200 + i);
      expect(Date.now() - started).toBeLessThan(1_500);
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json().code).toBe('unavailable');
      expect(res.headers['retry-after']).toBe('1');
    }
    await expect(t.stores.probes.redis!()).rejects.toThrow();

    // Back: no restart of the API, the next requests simply succeed.
    await redis.start();
    await waitFor('the API to serve again', async () => (await send(300)).statusCode === 200, { timeoutMs: 10_000, intervalMs: 100 });
    for (let i = 0; i < 5; i++) expect((await send(400 + i)).statusCode).toBe(200);
    await t.stores.probes.redis!();

    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    // Every 200 counted exactly once: requests whose answer was lost in the shutdown are refunded once Redis is back.
    const ok = statuses.filter((s) => s === 200).length;
    const usage = await waitFor('deferred refunds to settle', async () => {
      const now = await t.stores.meter.usage(caller.accountId, periodOf(new Date()));
      return now.requests === ok ? now : undefined;
    }, { timeoutMs: 5_000, intervalMs: 100 }).catch(async () => t.stores.meter.usage(caller.accountId, periodOf(new Date())));
    expect(usage.requests).toBe(ok);
    expect(usage.qrs).toBe(3);
  }, 60_000);
});
