// Two API instances on one Redis and one store, each caching accounts' scanPrivacy: a change made on one reaches the
// other's scans within a second, over the invalidation bus.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CachedScanPrivacy } from '../../src/adapters/scan-privacy.cached.js';
import { rollupScans } from '../../src/services/rollup-scans.js';
import type { TestApp } from '../helpers/app.js';
import { codesApi, scan, USER_AGENTS } from '../helpers/codes.js';
import { startTwoInstancesOnRedis, type TwoInstances } from '../helpers/two-instances.js';
import { waitFor } from '../helpers/wait.js';

let instances: TwoInstances;
let a: TestApp;
let b: TestApp;

beforeAll(async () => {
  // The caches keep an entry for an hour, longer than this file runs: only the pushed invalidation can take one out.
  instances = await startTwoInstancesOnRedis('scan-privacy', { cacheTtlMs: 3_600_000 });
  ({ a, b } = instances);
}, 60_000);

afterAll(async () => instances?.close());

/** Sets the account's scan_privacy straight in the shared database file, behind every cache's back. */
function setPrivacyInDatabase(accountId: string, privacy: string | null): void {
  const db = new Database(join(instances.dataDir, 'qr-manager.db'));
  try {
    db.prepare('UPDATE accounts SET scan_privacy = ? WHERE id = ?').run(privacy, accountId);
  } finally {
    db.close();
  }
}

/** One scan on B from a Brazilian address; answers whether it was counted with its country. */
async function scanOnBIsPlaced(key: string, code: { id: string; slug: string }): Promise<boolean> {
  const placed = async () => {
    await b.stores.scans.flush();
    await rollupScans(b.stores);
    const stats = (await codesApi(b.app, key).stats(code.id)).json() as { countries: Record<string, number> };
    return stats.countries.BR ?? 0;
  };
  const before = await placed();
  const answer = await scan(b.app, code.slug, { ip: '200.147.67.142', userAgent: USER_AGENTS.ios });
  expect(answer.statusCode).toBe(302);
  return (await placed()) === before + 1;
}

describe('two API instances sharing one Redis', () => {
  it('record scans on one at the scanPrivacy set on the other within a second: the change is pushed', async () => {
    const { key, accountId } = await a.newCaller('pro');
    const code = await codesApi(a.app, key).created('https://example.com/privacy');

    // B caches the default (country) once its bus listens: changed behind its back, its scans are still placed.
    expect(await scanOnBIsPlaced(key, code)).toBe(true);
    await waitFor('B to hold the setting in its cache', async () => {
      // Dropped and read again at the default first: a try made before the bus listened may have cached `none`.
      const lookup = b.stores.scanPrivacy as CachedScanPrivacy;
      expect(lookup).toBeInstanceOf(CachedScanPrivacy);
      lookup.forget(accountId);
      await lookup.privacyOf(accountId);
      setPrivacyInDatabase(accountId, 'none');
      const cached = await scanOnBIsPlaced(key, code);
      setPrivacyInDatabase(accountId, null);
      return cached;
    });

    const changed = await a.app.inject({
      method: 'PATCH',
      url: '/api/v1/QRManager/settings',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: JSON.stringify({ scanPrivacy: 'none' }),
    });
    expect(changed.statusCode, changed.body).toBe(200);
    await waitFor('a scan on B to be counted without its place', async () => !(await scanOnBIsPlaced(key, code)), {
      timeoutMs: 1_000,
      intervalMs: 50,
    });
  }, 30_000);
});
