// The embedded default caches credentials, yet a revocation or plan change takes effect at once (signing keys: within
// 100 ms), made here or by another process (qrm) on the same file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CachedKeyStore } from '../../src/adapters/key-store.cached.js';
import { CachedSigningKeyStore } from '../../src/adapters/signing-key-store.cached.js';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { SqliteInvalidationBus } from '../../src/adapters/sqlite/invalidation-bus.sqlite.js';
import { SqliteSigningKeyStore } from '../../src/adapters/sqlite/signing-key-store.sqlite.js';
import { ThrottledLivenessBus } from '../../src/adapters/throttled-liveness-bus.js';
import { databaseFile } from '../../src/adapters/sqlite/database.js';
import { createSqliteStores } from '../../src/adapters/sqlite/sqlite-stores.js';
import { hashApiKey } from '../../src/domain/api-key.js';
import { createLocalAccount } from '../../src/services/accounts.js';
import { issueKey, revokeKey } from '../../src/services/api-keys.js';

let dir: string;
let stores: ReturnType<typeof createSqliteStores>;
const PEPPER = 'test-pepper';
const deps = () => ({ ...stores, keyPepper: PEPPER, clock: () => new Date() });

/** What qrm does: its own connection to the same file, committing behind the API's cache. */
function otherProcess(sql: string, ...params: unknown[]): void {
  const db = new Database(databaseFile(dir));
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

async function cachedCaller() {
  const account = await createLocalAccount(deps(), `dev-${Date.now()}@example.com`, 'free');
  const { secret, key } = await issueKey(deps(), account.id, 'ci');
  const hash = hashApiKey(secret, PEPPER);
  expect(await stores.keys.findActiveCredential(hash)).toMatchObject({ keyId: key.id, plan: 'free' });
  // Held in memory from now on.
  expect(stores.keys).toBeInstanceOf(CachedKeyStore);
  expect((stores.keys as CachedKeyStore).size).toBe(1);
  return { accountId: account.id, keyId: key.id, hash };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'qrm-credentials-'));
  stores = createSqliteStores(dir);
});

afterEach(async () => {
  await stores.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('credentials cached by the embedded default', () => {
  it('answers a known key from memory until something changes', async () => {
    const { hash, keyId } = await cachedCaller();
    expect(await stores.keys.findActiveCredential(hash)).toMatchObject({ keyId });
    expect((stores.keys as CachedKeyStore).size).toBe(1);
  });

  it('refuses a key revoked by another process at once', async () => {
    const { hash, keyId } = await cachedCaller();
    otherProcess('UPDATE api_keys SET revoked_at = ? WHERE id = ?', Date.now(), keyId);
    expect(await stores.keys.findActiveCredential(hash)).toBeUndefined();
  });

  it('refuses a key revoked in this process at once', async () => {
    const { hash, keyId, accountId } = await cachedCaller();
    await revokeKey(deps(), accountId, keyId);
    expect(await stores.keys.findActiveCredential(hash)).toBeUndefined();
  });

  it('carries a plan changed here or by another process at once', async () => {
    const { hash, accountId } = await cachedCaller();
    await stores.accounts.setPlan(accountId, 'pro');
    expect(await stores.keys.findActiveCredential(hash)).toMatchObject({ plan: 'pro' });
    otherProcess('UPDATE accounts SET plan = ? WHERE id = ?', 'business', accountId);
    expect(await stores.keys.findActiveCredential(hash)).toMatchObject({ plan: 'business' });
  });

  it(
    'refuses a signing key revoked by another process once ' + '100 ms have passed, not before (the clock is driven)',
    async () => {
      const { accountId } = await cachedCaller();
      const db = openDatabase(dir);
      let now = 0;
      const signingKeys = new CachedSigningKeyStore(
        new SqliteSigningKeyStore(db),
        new ThrottledLivenessBus(new SqliteInvalidationBus(db), 100, () => now),
      );
      try {
        const created = await signingKeys.createWithinLimit(
          { id: 'sk_AAAAAAAAAAAAAAAAAAAA', accountId, name: 'cdn', sealedSecret: 'sealed', createdAt: new Date() },
          5,
        );
        expect(created).not.toBe('limit_reached');
        expect(await signingKeys.findActive('sk_AAAAAAAAAAAAAAAAAAAA')).toMatchObject({ accountId });
        otherProcess('UPDATE signing_keys SET revoked_at = ? WHERE id = ?', Date.now(), 'sk_AAAAAAAAAAAAAAAAAAAA');
        now = 99;
        // The lag it is allowed.
        expect(await signingKeys.findActive('sk_AAAAAAAAAAAAAAAAAAAA')).toMatchObject({ accountId });
        now = 100;
        expect(await signingKeys.findActive('sk_AAAAAAAAAAAAAAAAAAAA')).toBeUndefined();
      } finally {
        db.close();
      }
    },
  );
});
