// Contract suite for the SessionStore port: every adapter runs these same cases.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Session, SessionStore } from '../../src/domain/ports/session-store.js';

export function sessionStoreContract(adapterName: string, makeStore: () => Promise<SessionStore> | SessionStore): void {
  describe(`SessionStore contract: ${adapterName}`, () => {
    // Real time: a store may expire records by its own clock (Redis does).
    const session = (overrides: Partial<Session> = {}): Session => {
      const now = Date.now();
      return {
        id: `s-${randomUUID()}`,
        accountId: `acc-${randomUUID()}`,
        activeAccountId: undefined,
        csrfSecret: randomUUID(),
        createdAt: new Date(now),
        expiresAt: new Date(now + 60_000),
        pendingSignIn: undefined,
        ...overrides,
      };
    };

    it('finds a session exactly as it was stored', async () => {
      const store = await makeStore();
      const signedIn = session();
      const pending = session({
        accountId: undefined,
        pendingSignIn: { provider: 'microsoft', state: 'st-1', nonce: 'n-1' },
      });
      const inAnotherAccount = session({ activeAccountId: `acc-${randomUUID()}` });
      await store.create(signedIn);
      await store.create(pending);
      await store.create(inAnotherAccount);
      expect(await store.find(signedIn.id, new Date())).toEqual(signedIn);
      expect(await store.find(inAnotherAccount.id, new Date())).toEqual(inAnotherAccount);
      expect(await store.find(pending.id, new Date())).toEqual(pending);
      expect(await store.find(`s-${randomUUID()}`, new Date())).toBeUndefined();
    });

    it('never returns a session at or after its expiry', async () => {
      const store = await makeStore();
      const s = session();
      await store.create(s);
      expect(await store.find(s.id, new Date(s.expiresAt.getTime() - 1))).toBeDefined();
      expect(await store.find(s.id, s.expiresAt)).toBeUndefined();
      expect(await store.take(s.id, s.expiresAt)).toBeUndefined();
    });

    it('forgets a session once its expiry has passed, not only hides it from a reader', async () => {
      const store = await makeStore();
      // Expired a minute ago by the real clock (Redis's own), created before that; then a later session is created
      // (SQLite sweeps then).
      const expiresAt = new Date(Date.now() - 60_000);
      const s = session({ createdAt: new Date(expiresAt.getTime() - 60_000), expiresAt });
      await store.create(s);
      await store.create(session());
      // Asked as of a moment before its expiry, the store would still hand it out had it kept the record.
      expect(await store.find(s.id, new Date(expiresAt.getTime() - 1))).toBeUndefined();
      expect(await store.take(s.id, new Date(expiresAt.getTime() - 1))).toBeUndefined();
    });

    it('hands a session to exactly one of many concurrent takes, then forgets it', async () => {
      const store = await makeStore();
      const s = session({ accountId: undefined, pendingSignIn: { provider: 'google', state: 'st', nonce: 'n' } });
      await store.create(s);
      const taken = await Promise.all(Array.from({ length: 8 }, () => store.take(s.id, new Date())));
      expect(taken.filter((t) => t !== undefined)).toEqual([s]);
      expect(await store.find(s.id, new Date())).toBeUndefined();
    });

    it('deletes one session, and deleting a missing one is harmless', async () => {
      const store = await makeStore();
      const kept = session();
      const removed = session({ accountId: kept.accountId });
      await store.create(kept);
      await store.create(removed);
      await store.delete(removed.id);
      await store.delete(removed.id);
      expect(await store.find(removed.id, new Date())).toBeUndefined();
      expect(await store.find(kept.id, new Date())).toEqual(kept);
    });

    it("deletes every session of one account and no other account's", async () => {
      const store = await makeStore();
      const accountId = `acc-${randomUUID()}`;
      const mine = [session({ accountId }), session({ accountId }), session({ accountId })];
      const theirs = session();
      for (const s of [...mine, theirs]) await store.create(s);
      await store.take(mine[2]!.id, new Date());
      expect(await store.deleteForAccount(accountId)).toBe(2);
      for (const s of mine) expect(await store.find(s.id, new Date())).toBeUndefined();
      expect(await store.find(theirs.id, new Date())).toEqual(theirs);
      expect(await store.deleteForAccount(accountId)).toBe(0);
    });
  });
}
