// Contract suite for the SigningKeyStore port: every adapter runs these same cases.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AccountStore } from '../../src/domain/ports/account-store.js';
import type { SigningKeyStore } from '../../src/domain/ports/signing-key-store.js';
import { newSigningKeyId } from '../../src/domain/signed-url.js';
import { createStoredAccount } from '../helpers/stored-account.js';

export function signingKeyStoreContract(
  adapterName: string,
  makeStores: () => Promise<{ accounts: AccountStore; signingKeys: SigningKeyStore }>,
): void {
  describe(`SigningKeyStore contract: ${adapterName}`, () => {
    async function setup() {
      const { accounts, signingKeys } = await makeStores();
      const account = await createStoredAccount(accounts, { prefix: 's' });
      const newKey = (name = 'k') => ({
        id: newSigningKeyId(),
        accountId: account.id,
        name,
        sealedSecret: `sealed-${randomUUID()}`,
        createdAt: new Date(1_000),
      });
      return { signingKeys, account, newKey };
    }

    it('resolves an active key by id to its account, plan and sealed secret', async () => {
      const { signingKeys, account, newKey } = await setup();
      const input = newKey('mail');
      const created = await signingKeys.createWithinLimit(input, 5);
      expect(created).toEqual({
        id: input.id,
        accountId: account.id,
        name: 'mail',
        createdAt: new Date(1_000),
        revokedAt: undefined,
      });
      expect(await signingKeys.findActive(input.id)).toEqual({
        keyId: input.id,
        accountId: account.id,
        plan: 'pro',
        sealedSecret: input.sealedSecret,
      });
      expect(await signingKeys.findActive(newSigningKeyId())).toBeUndefined();
    });

    it(
      'never holds more than the limit of active keys, even under concurrent creation, and a revoked key frees ' +
        'its place',
      async () => {
        const { signingKeys, account, newKey } = await setup();
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) => signingKeys.createWithinLimit(newKey(`k${i}`), 5)),
        );
        const created = results.filter((r) => r !== 'limit_reached');
        expect(created).toHaveLength(5);
        expect(await signingKeys.createWithinLimit(newKey(), 5)).toBe('limit_reached');
        await signingKeys.revoke(account.id, created[0]!.id, new Date());
        expect(await signingKeys.createWithinLimit(newKey(), 5)).not.toBe('limit_reached');
        expect((await signingKeys.list(account.id)).filter((k) => !k.revokedAt)).toHaveLength(5);
      },
    );

    it('stops resolving a key the moment it is revoked, and keeps the first revocation time', async () => {
      const { signingKeys, account, newKey } = await setup();
      const input = newKey();
      await signingKeys.createWithinLimit(input, 5);
      expect((await signingKeys.revoke(account.id, input.id, new Date(2_000)))?.revokedAt).toEqual(new Date(2_000));
      expect(await signingKeys.findActive(input.id)).toBeUndefined();
      expect((await signingKeys.revoke(account.id, input.id, new Date(3_000)))?.revokedAt).toEqual(new Date(2_000));
    });

    it('scopes listing and revoking to the account', async () => {
      const a = await setup();
      const b = await setup();
      const input = a.newKey();
      await a.signingKeys.createWithinLimit(input, 5);
      expect(await b.signingKeys.revoke(b.account.id, input.id, new Date())).toBeUndefined();
      expect(await b.signingKeys.list(b.account.id)).toEqual([]);
      expect(await a.signingKeys.findActive(input.id)).toBeDefined();
    });
  });
}
