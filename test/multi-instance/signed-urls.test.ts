// Two API instances on one Redis: a signing key revoked on one stops its URLs on the other at once (pushed), although
// the other had it cached.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type TestApp } from '../helpers/app.js';
import { newSigningKey, signedUrl, SIGNING_KEYS_URL } from '../helpers/signed-urls.js';
import { startTwoInstancesOnRedis, type TwoInstances } from '../helpers/two-instances.js';
import { waitFor } from '../helpers/wait.js';

let instances: TwoInstances;
let a: TestApp;
let b: TestApp;

beforeAll(async () => {
  // The caches keep an entry for an hour, longer than this file runs: only the pushed invalidation can take one out.
  instances = await startTwoInstancesOnRedis('signed-urls', { cacheTtlMs: 3_600_000 });
  ({ a, b } = instances);
}, 60_000);
afterAll(async () => instances?.close());

function setRevokedInDatabase(keyId: string, revokedAt: number | null): void {
  const db = new Database(join(instances.dataDir, 'qr-manager.db'));
  try {
    db.prepare('UPDATE signing_keys SET revoked_at = ? WHERE id = ?').run(revokedAt, keyId);
  } finally {
    db.close();
  }
}

it(
  'refuse URLs of a signing key revoked on the other ' +
    'instance, although it was cached: the revocation is ' +
    'pushed',
  async () => {
    const caller = await a.newCaller('pro');
    const signing = await newSigningKey(a.app, caller.key);
    const url = (n: number) =>
      signedUrl(signing, 'png', { content: `https://example.com/${n}`, type: 'url', size: 128 });
    let n = 0;
    // B serves the key from its cache: revoked behind its back in the database, B still answers.
    await waitFor(
      "B's cache to hold the signing key",
      async () => {
        expect((await b.app.inject({ method: 'GET', url: url(n++) })).statusCode).toBe(200);
        setRevokedInDatabase(signing.id, Date.now());
        const cached = (await b.app.inject({ method: 'GET', url: url(n++) })).statusCode === 200;
        setRevokedInDatabase(signing.id, null);
        return cached;
      },
      { intervalMs: 100 },
    );
    const revoked = await a.app.inject({
      method: 'DELETE',
      url: `${SIGNING_KEYS_URL}/${signing.id}`,
      headers: { 'x-api-key': caller.key },
    });
    expect(revoked.statusCode).toBe(200);
    await waitFor(
      'B to refuse the revoked signing key',
      async () => (await b.app.inject({ method: 'GET', url: url(n++) })).statusCode === 403,
      {
        timeoutMs: 10_000,
        intervalMs: 20,
      },
    );
  },
  30_000,
);
