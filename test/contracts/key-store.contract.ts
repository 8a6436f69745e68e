// Contract suite for the KeyStore port: every adapter runs these same cases.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AccountStore } from '../../src/domain/ports/account-store.js';
import type { KeyStore, NewApiKey } from '../../src/domain/ports/key-store.js';
import { OPERATOR_ACTOR } from '../../src/domain/actor.js';
import { KEY_SCOPES } from '../../src/domain/key-scope.js';
import { createStoredAccount } from '../helpers/stored-account.js';

export function keyStoreContract(
  adapterName: string,
  makeStores: () => Promise<{ accounts: AccountStore; keys: KeyStore }>,
): void {
  describe(`KeyStore contract: ${adapterName}`, () => {
    async function setup() {
      const { accounts, keys } = await makeStores();
      const account = await createStoredAccount(accounts, { prefix: 'k' });
      const newKey = (name = 'k', extra: Partial<NewApiKey> = {}): NewApiKey => ({
        accountId: account.id,
        name,
        hash: randomUUID(),
        hint: 'qrm_live_…abcd',
        createdAt: new Date(),
        scopes: [...KEY_SCOPES],
        expiresAt: undefined,
        createdBy: OPERATOR_ACTOR,
        ...extra,
      });
      return { keys, accounts, account, newKey };
    }

    it('resolves an active key to its account and plan by hash', async () => {
      const { keys, account, newKey } = await setup();
      const input = newKey();
      const created = await keys.createWithinLimit(input, 5);
      if (created === 'limit_reached') throw new Error('unexpected limit');
      expect(await keys.findActiveCredential(input.hash)).toEqual({
        keyId: created.id,
        accountId: account.id,
        plan: 'pro',
        hint: 'qrm_live_…abcd',
        scopes: [...KEY_SCOPES],
        expiresAt: undefined,
      });
      expect(await keys.findActiveCredential('no-such-hash')).toBeUndefined();
    });

    it(
      "keeps a key's scopes, expiry and maker, and resolves an expired key with its expiry for the caller to " +
        'refuse',
      async () => {
        const { keys, account, newKey } = await setup();
        const maker = { type: 'member' as const, id: 'mem_1', label: 'dev@example.com' };
        const input = newKey('narrow', {
          scopes: ['codes:read', 'generate'],
          expiresAt: new Date(1_000),
          createdBy: maker,
        });
        const created = await keys.createWithinLimit(input, 5);
        if (created === 'limit_reached') throw new Error('unexpected limit');
        expect(created).toMatchObject({
          scopes: ['generate', 'codes:read'],
          expiresAt: new Date(1_000),
          createdBy: maker,
        });
        expect(await keys.findActiveCredential(input.hash)).toMatchObject({
          scopes: ['generate', 'codes:read'],
          expiresAt: new Date(1_000),
        });
        expect((await keys.list(account.id))[0]).toMatchObject({
          scopes: ['generate', 'codes:read'],
          createdBy: maker,
        });
      },
    );

    it('never holds more than the limit of active keys, even under concurrent creation', async () => {
      const { keys, account, newKey } = await setup();
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => keys.createWithinLimit(newKey(`k${i}`), 5)),
      );
      expect(results.filter((r) => r !== 'limit_reached')).toHaveLength(5);
      expect((await keys.list(account.id)).filter((k) => !k.revokedAt)).toHaveLength(5);
    });

    it('stops resolving a key the moment it is revoked, and keeps the first revocation time', async () => {
      const { keys, account, newKey } = await setup();
      const input = newKey();
      const created = await keys.createWithinLimit(input, 5);
      if (created === 'limit_reached') throw new Error('unexpected limit');
      const first = await keys.revoke(account.id, created.id, new Date(1_000_000));
      expect(first?.revokedAt).toEqual(new Date(1_000_000));
      expect(await keys.findActiveCredential(input.hash)).toBeUndefined();
      const second = await keys.revoke(account.id, created.id, new Date(2_000_000));
      expect(second?.revokedAt).toEqual(new Date(1_000_000));
    });

    it('scopes every key operation to its account', async () => {
      const a = await setup();
      const b = await setup();
      const created = await a.keys.createWithinLimit(a.newKey(), 5);
      if (created === 'limit_reached') throw new Error('unexpected limit');
      expect(await b.keys.revoke(b.account.id, created.id, new Date())).toBeUndefined();
      expect(await b.keys.list(b.account.id)).toEqual([]);
      expect((await a.keys.list(a.account.id))[0]?.revokedAt).toBeUndefined();
    });

    it('moves last-used times forward only', async () => {
      const { keys, account, newKey } = await setup();
      const created = await keys.createWithinLimit(newKey(), 5);
      if (created === 'limit_reached') throw new Error('unexpected limit');
      await keys.recordLastUsed([{ keyId: created.id, at: new Date(5_000) }]);
      await keys.recordLastUsed([{ keyId: created.id, at: new Date(3_000) }]);
      expect((await keys.list(account.id))[0]?.lastUsedAt).toEqual(new Date(5_000));
    });
  });
}
