// Two API instances on one Redis and one store: a quota holds across both, and a revocation on one reaches the other within a second.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CachedKeyStore } from '../../src/adapters/redis/key-store.cached.js';
import { periodOf } from '../../src/domain/period.js';
import { changePlan } from '../../src/services/accounts.js';
import { revokeKey } from '../../src/services/api-keys.js';
import { qrFingerprint } from '../../src/services/generate-qr.js';
import { generate, type TestApp } from '../helpers/app.js';
import type { RedisServer } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';
import { startTwoInstancesOnRedis, type TwoInstances } from '../helpers/two-instances.js';

let redis: RedisServer;
let dataDir: string;
let a: TestApp;
let b: TestApp;

let instances: TwoInstances;

beforeAll(async () => {
  // A render queue deep enough for the bursts below: these tests are about metering, not load shedding.
  instances = await startTwoInstancesOnRedis('multi', { pool: { threads: 1, maxQueue: 1_000 } });
  ({ redis, dataDir, a, b } = instances);
}, 60_000);

afterAll(async () => instances?.close());

const png = (content: string) => ({ content, type: 'text', outputFormat: 'png', size: 64 });
const deps = (t: TestApp) => ({ ...t.stores, keyPepper: t.config.keyPepper, clock: () => new Date() });

/** Waits until the instance's credential cache is subscribed and holds the caller's credential. */
async function warmCache(t: TestApp, key: string): Promise<void> {
  await waitFor('the credential cache to hold the key', async () => {
    expect((await generate(t.app, key, png('warm-up'))).statusCode).toBe(200);
    return (t.stores.keys as unknown as CachedKeyStore).size > 0;
  });
}

describe('two API instances sharing one Redis', () => {
  it('never exceed the monthly request quota together under concurrent load', async () => {
    const caller = await a.newCaller('free'); // 500 requests a month
    // 495 of them spent beforehand (no burst limit on this direct metering): fewer left (5) than the free burst (10),
    // so the 595 refusals below can only come from the monthly limit, not from the per-key burst.
    const period = periodOf(new Date());
    for (let i = 0; i < 495; i++) {
      const payload = `code ${i % 5}`;
      const qr = { fingerprint: qrFingerprint('text', payload), type: 'text' as const, payload };
      expect((await a.stores.meter.reserve({ accountId: caller.accountId, period, qr, limits: { requests: 500, qrs: 5 }, at: new Date() })).ok).toBe(true);
    }
    const results = await Promise.all(
      Array.from({ length: 600 }, (_, i) => generate(i % 2 === 0 ? a.app : b.app, caller.key, png(`code ${i % 5}`))),
    );
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(595);
    expect(results.filter((r) => r.statusCode === 429).every((r) => r.json().code === 'quota_exceeded')).toBe(true);
    expect(await a.stores.meter.usage(caller.accountId, period)).toEqual({ requests: 500, qrs: 5 });
  }, 60_000);

  it('never exceed the distinct-QR quota together under concurrent load', async () => {
    const caller = await a.newCaller('free'); // 5 distinct QRs a month
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => generate(i % 2 === 0 ? a.app : b.app, caller.key, png(`distinct ${i}`))));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(5);
    expect(results.filter((r) => r.statusCode === 429).every((r) => r.json().code === 'qr_quota_exceeded')).toBe(true);
    expect(await b.stores.meter.usage(caller.accountId, periodOf(new Date()))).toEqual({ requests: 5, qrs: 5 });
  }, 30_000);

  it('refuse a key revoked on the other instance within a second, although it was cached', async () => {
    const caller = await a.newCaller('free');
    await warmCache(b, caller.key);

    // Revoked behind the cache's back (straight in the database): B still answers from its cache...
    const db = new Database(join(dataDir, 'qr-manager.db'));
    db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(Date.now(), caller.keyId);
    db.close();
    expect((await generate(b.app, caller.key, png('cached'))).statusCode).toBe(200);

    // ...but a revocation through the service on A is pushed to B at once.
    const revokedAt = Date.now();
    await revokeKey(deps(a), caller.accountId, caller.keyId);
    const elapsed = await waitFor(
      'B to refuse the revoked key',
      async () => ((await generate(b.app, caller.key, png('after revoke'))).statusCode === 401 ? Date.now() - revokedAt : undefined),
      { timeoutMs: 2_000, intervalMs: 20 },
    );
    expect(elapsed).toBeLessThan(1_000);
  }, 30_000);

  it('apply a plan change made on the other instance to cached credentials within a second', async () => {
    const caller = await a.newCaller('free');
    await warmCache(b, caller.key);
    expect((await generate(b.app, caller.key, { ...png('svg'), outputFormat: 'svg' })).statusCode).toBe(403);
    const changedAt = Date.now();
    await changePlan(deps(a), caller.accountId, 'pro');
    const elapsed = await waitFor(
      'B to see the pro plan',
      async () => ((await generate(b.app, caller.key, { ...png('svg'), outputFormat: 'svg' })).statusCode === 200 ? Date.now() - changedAt : undefined),
      { timeoutMs: 2_000, intervalMs: 20 },
    );
    expect(elapsed).toBeLessThan(1_000);
  }, 30_000);
});
