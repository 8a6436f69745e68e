// Two API instances on one Redis and one store, each caching credentials: a revocation or plan change on one is pushed
// to the other.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changePlan } from '../../src/services/accounts.js';
import { issueKey, revokeKey } from '../../src/services/api-keys.js';
import { changeRole, removeMember } from '../../src/services/members.js';
import { generate, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/wait.js';
import { startTwoInstancesOnRedis, type TwoInstances } from '../helpers/two-instances.js';

let dataDir: string;
let a: TestApp;
let b: TestApp;

let instances: TwoInstances;

beforeAll(async () => {
  // The caches keep an entry for an hour, longer than this file runs: only the pushed invalidation can take one out.
  instances = await startTwoInstancesOnRedis('credentials', { cacheTtlMs: 3_600_000 });
  ({ dataDir, a, b } = instances);
}, 60_000);

afterAll(async () => instances?.close());

const png = (content: string) => ({ content, type: 'text', outputFormat: 'png', size: 64 });
const deps = (t: TestApp) => ({ ...t.stores, keyPepper: t.config.keyPepper, clock: () => new Date(), plans: t.plans });

/** Sets the key's revoked_at straight in the shared database file, behind every cache's back (null: active again). */
function setRevokedInDatabase(keyId: string, revokedAt: number | null): void {
  const db = new Database(join(dataDir, 'qr-manager.db'));
  try {
    db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(revokedAt, keyId);
  } finally {
    db.close();
  }
}

/**
 * Waits until the instance answers for the key from its credential cache, seen from outside: with the key revoked
 * in the database behind its back, it still serves it. The key is active again in the database on return.
 */
async function warmCache(t: TestApp, caller: { key: string; keyId: string }): Promise<void> {
  await waitFor(
    'the credential cache to hold the key',
    async () => {
      expect((await generate(t.app, caller.key, png('warm-up'))).statusCode).toBe(200);
      setRevokedInDatabase(caller.keyId, Date.now());
      const cached = (await generate(t.app, caller.key, png('warm-up'))).statusCode === 200;
      setRevokedInDatabase(caller.keyId, null);
      return cached;
    },
    { intervalMs: 250 },
  ); // two requests a try: well under the free plan's burst of 10 a second
}

describe('two API instances sharing one Redis', () => {
  it('refuse a key revoked on the other instance, although it was cached: the revocation is pushed', async () => {
    const caller = await a.newCaller('free');
    await warmCache(b, caller);

    // Revoked behind the cache's back (straight in the database): B still answers from its cache...
    setRevokedInDatabase(caller.keyId, Date.now());
    expect((await generate(b.app, caller.key, png('cached'))).statusCode).toBe(200);

    // ...but a revocation through the service on A is pushed to B at once.
    await revokeKey(deps(a), caller.accountId, caller.keyId);
    await waitFor(
      'B to refuse the revoked key',
      async () => (await generate(b.app, caller.key, png('after revoke'))).statusCode === 401,
      {
        timeoutMs: 10_000,
        intervalMs: 20,
      },
    );
  }, 30_000);

  /** A developer of the caller's account, with a key it made (every scope its role allows), cached on B. */
  async function developerKeyCachedOnB() {
    const owner = await a.newCaller('free');
    const email = `dev-${Date.now()}-${Math.random()}@example.com`;
    const member = await a.stores.members.add({
      accountId: owner.accountId,
      identity: { provider: 'local', subject: email },
      email,
      role: 'developer',
      joinedAt: new Date(),
    });
    const issued = await issueKey(deps(a), owner.accountId, 'dev', {
      createdBy: { type: 'member', id: member.id, label: email },
      makerRole: 'developer',
    });
    const caller = { key: issued.secret, keyId: issued.key.id };
    await warmCache(b, caller);
    return { owner, member, caller };
  }

  it("refuse a removed member's key on the other instance, although it was cached", async () => {
    const { owner, member, caller } = await developerKeyCachedOnB();
    await removeMember(deps(a), { type: 'api_key', keyId: owner.keyId }, owner.accountId, member.id);
    await waitFor(
      "B to refuse the removed member's key",
      async () => (await generate(b.app, caller.key, png('after removal'))).statusCode === 401,
      { timeoutMs: 10_000, intervalMs: 20 },
    );
    // The owner's own key is untouched.
    expect((await generate(b.app, owner.key, png('owner'))).statusCode).toBe(200);
  }, 30_000);

  it("refuse a demoted member's key on the other instance when the new role may not make it", async () => {
    const { owner, member, caller } = await developerKeyCachedOnB();
    await changeRole(deps(a), { type: 'api_key', keyId: owner.keyId }, owner.accountId, member.id, 'viewer');
    await waitFor(
      "B to refuse the demoted member's key",
      async () => (await generate(b.app, caller.key, png('after demotion'))).statusCode === 401,
      { timeoutMs: 10_000, intervalMs: 20 },
    );
  }, 30_000);

  it('apply a plan change made on the other instance to cached credentials: the change is pushed', async () => {
    const caller = await a.newCaller('free');
    await warmCache(b, caller);
    expect((await generate(b.app, caller.key, { ...png('svg'), outputFormat: 'svg' })).statusCode).toBe(403);
    await changePlan(deps(a), caller.accountId, 'pro');
    await waitFor(
      'B to see the pro plan',
      async () => (await generate(b.app, caller.key, { ...png('svg'), outputFormat: 'svg' })).statusCode === 200,
      {
        timeoutMs: 10_000,
        intervalMs: 20,
      },
    );
  }, 30_000);
});
