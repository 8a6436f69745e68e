// Dynamic codes in Redis mode, two instances on one Redis: a PATCH is pushed to both, scans are counted exactly and
// rolled up idempotently, unique scanners by HyperLogLog within its error bound, and a Redis outage never stops a
// redirect.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CachedDynamicCodeStore } from '../../src/adapters/dynamic-code-store.cached.js';
import { dayOf, emptyScanDay } from '../../src/domain/scan.js';
import { rollupScans } from '../../src/services/rollup-scans.js';
import type { TestApp } from '../helpers/app.js';
import { codesApi, scan, scanByFortyVisitors, type CodeJson } from '../helpers/codes.js';
import { startTwoInstancesOnRedis, untilBothReachRedis, type TwoInstances } from '../helpers/two-instances.js';
import { waitFor } from '../helpers/wait.js';

let instances: TwoInstances;
let a: TestApp;
let b: TestApp;

beforeAll(async () => {
  // Load shedding off: two instances and hundreds of concurrent scans in one process on a busy machine are not
  // overload.
  // The slug caches keep an entry for an hour, longer than this file runs: only the pushed invalidation can take one
  // out.
  instances = await startTwoInstancesOnRedis('dynamic', {
    env: { MAX_EVENT_LOOP_DELAY_MS: '0' },
    cacheTtlMs: 3_600_000,
  });
  ({ a, b } = instances);
}, 60_000);
afterAll(async () => instances?.close());

const cacheOf = (t: TestApp) => t.stores.codes as unknown as CachedDynamicCodeStore;

/** Scans on the instance until its slug cache is subscribed and holds the code. */
async function warmCache(t: TestApp, slug: string): Promise<void> {
  await waitFor('the slug cache to hold the code', async () => {
    expect((await scan(t.app, slug)).statusCode).toBe(302);
    return cacheOf(t).size > 0;
  });
}

async function rollUp(): Promise<void> {
  await Promise.all([a.stores.scans.flush(), b.stores.scans.flush()]);
  await rollupScans(a.stores);
}

async function statsOf(key: string, id: string) {
  const res = await codesApi(b.app, key).stats(id);
  expect(res.statusCode).toBe(200);
  return res.json() as {
    totals: { scans: number; uniqueScanners: number };
    devices: Record<string, number>;
    uniqueScanners: { counting: string; relativeStandardError: number };
  };
}

describe('dynamic codes on two instances sharing one Redis', () => {
  it('follow a PATCH made on the other instance, although the slug was cached: the change is pushed', async () => {
    const api = codesApi(a.app, (await a.newCaller('pro')).key);
    const code = await api.created('https://example.com/before');
    await warmCache(b, code.slug);

    // Changed behind the cache's back (straight in the database): B still answers from its cache...
    const db = new Database(join(instances.dataDir, 'qr-manager.db'));
    db.prepare('UPDATE dynamic_codes SET target = ? WHERE id = ?').run('https://example.com/sideways', code.id);
    db.close();
    expect((await scan(b.app, code.slug)).headers.location).toBe('https://example.com/before');

    // ...but a PATCH through the API on A is pushed to B at once.
    expect((await api.patch(code.id, { target: 'https://example.com/after' })).statusCode).toBe(200);
    await waitFor(
      'B to redirect to the new target',
      async () => (await scan(b.app, code.slug)).headers.location === 'https://example.com/after',
      {
        timeoutMs: 10_000,
        intervalMs: 20,
      },
    );

    await api.patch(code.id, { status: 'paused' });
    await waitFor(
      'B to answer 410 for the paused code',
      async () => (await scan(b.app, code.slug)).statusCode === 410,
      { timeoutMs: 10_000, intervalMs: 20 },
    );
  }, 30_000);

  it('count N concurrent scans across both instances exactly, and a replayed rollup changes nothing', async () => {
    const key = (await a.newCaller('pro')).key;
    const code = await codesApi(a.app, key).created('https://example.com/counted');
    const N = 200;
    const answers = await scanByFortyVisitors((i) => (i % 2 === 0 ? a.app : b.app), code.slug, '10.1.0');
    expect(answers).toHaveLength(N);
    expect(answers.every((r) => r.statusCode === 302)).toBe(true);
    await waitFor('every scan recorded', async () => {
      await rollUp();
      return (await statsOf(key, code.id)).totals.scans >= N || undefined;
    });
    const stats = await statsOf(key, code.id);
    expect(stats.totals.scans).toBe(N);
    // 40 distinct visitors; at this size the HyperLogLog (sparse encoding) is all but exact.
    expect(Math.abs(stats.totals.uniqueScanners - 40)).toBeLessThanOrEqual(1);
    expect(stats.devices).toEqual({ ios: 50, android: 50, desktop: 50, other: 50 });
    expect(stats.uniqueScanners).toEqual({ counting: 'hyperloglog', relativeStandardError: 0.0081 });

    // The rollup writes absolute values: running it again, with nothing new, leaves the ledger as it was.
    await rollupScans(a.stores);
    await b.stores.scanLedger.apply([{ ...emptyScanDay(code.id, dayOf(new Date())), scans: 3, uniques: 3 }]);
    expect((await statsOf(key, code.id)).totals.scans).toBe(N);
  }, 30_000);

  it('estimate unique scanners within the HyperLogLog error bound (0.81% standard error)', async () => {
    const key = (await a.newCaller('pro')).key;
    const code = await codesApi(a.app, key).created('https://example.com/popular');
    const visitors = 3_000;
    const at = new Date();
    // Straight to the recorder: the counting is what is under test, not the HTTP path (covered above).
    for (let i = 0; i < visitors; i++) {
      const recorder = i % 2 === 0 ? a.stores.scans : b.stores.scans;
      // Each visitor scans twice: twice the scans, one unique scanner.
      for (let scan = 0; scan < 2; scan++) {
        recorder.record({
          codeId: code.id,
          accountId: 'acc_test',
          at,
          visitor: `visitor-${i}`,
          device: 'other',
          language: 'en',
          place: null,
          bot: false,
        });
      }
    }
    await rollUp();
    const stats = await statsOf(key, code.id);
    expect(stats.totals.scans).toBe(2 * visitors);
    // Four standard errors: a correct HyperLogLog fails this about once in 16,000 runs.
    expect(Math.abs(stats.totals.uniqueScanners - visitors) / visitors).toBeLessThan(4 * 0.0081);
  }, 30_000);

  it('keep redirecting while Redis is down, and count the scans they could not record in a metric', async () => {
    const key = (await a.newCaller('pro')).key;
    const code = (await codesApi(a.app, key).created('https://example.com/outage')) as CodeJson;
    await warmCache(a, code.slug);
    await instances.redis.stop();
    try {
      for (let i = 0; i < 5; i++) {
        const res = await scan(a.app, code.slug);
        expect(res.statusCode).toBe(302);
        expect(res.headers.location).toBe('https://example.com/outage');
      }
      await a.stores.scans.flush();
      const metrics = await a.app.inject({ method: 'GET', url: '/metrics' });
      const unrecorded = Number(/^qrm_scans_unrecorded_total (\d+)/m.exec(metrics.body)?.[1]);
      expect(unrecorded).toBeGreaterThanOrEqual(5);
    } finally {
      await instances.redis.start();
      // Both instances back on Redis before the suite closes them: closing clients mid-reconnect is not what this
      // tests.
      await untilBothReachRedis(a, b);
    }
    // And scans are counted again once it is.
    const before = (await statsOf(key, code.id)).totals.scans;
    expect((await scan(b.app, code.slug)).statusCode).toBe(302);
    await waitFor('the scan after the outage to be counted', async () => {
      await rollUp();
      return (await statsOf(key, code.id)).totals.scans > before || undefined;
    });
  }, 30_000);
});
