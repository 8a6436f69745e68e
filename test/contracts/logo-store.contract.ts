// Contract suite for the LogoStore port: every adapter runs these same cases.
import { describe, expect, it } from 'vitest';
import type { AccountStore } from '../../src/domain/ports/account-store.js';
import type { LogoStore, NewLogo } from '../../src/domain/ports/logo-store.js';
import { createStoredAccount } from '../helpers/stored-account.js';

export function logoStoreContract(
  adapterName: string,
  makeStores: () => Promise<{ accounts: AccountStore; logos: LogoStore }>,
): void {
  describe(`LogoStore contract: ${adapterName}`, () => {
    async function setup() {
      const { accounts, logos } = await makeStores();
      const newAccount = () => createStoredAccount(accounts, { prefix: 'l' });
      const account = await newAccount();
      const newLogo = (name: string, createdAt = new Date(1_000)): NewLogo => ({
        accountId: account.id,
        name,
        png: new Uint8Array([137, 80, 78, 71, 1, 2, 3]),
        width: 20,
        height: 10,
        digest: `digest-${name}`,
        createdAt,
      });
      return { logos, account, newAccount, newLogo };
    }

    it('gives back what it stored, its name included, in reads and lists', async () => {
      const { logos, account, newLogo } = await setup();
      const created = await logos.createWithinLimit(newLogo('Acme mark'), 5);
      const expected = {
        id: expect.any(String),
        accountId: account.id,
        name: 'Acme mark',
        mediaType: 'image/png',
        width: 20,
        height: 10,
        bytes: 7,
        digest: 'digest-Acme mark',
        createdAt: new Date(1_000),
      };
      expect(created).toEqual(expected);
      const id = (created as { id: string }).id;
      expect(await logos.list(account.id)).toEqual([expected]);
      const stored = await logos.get(account.id, id);
      expect(stored).toEqual({ ...expected, png: new Uint8Array([137, 80, 78, 71, 1, 2, 3]) });
    });

    it('renames a logo, changing its name only, and answers it as now stored', async () => {
      const { logos, account, newLogo } = await setup();
      const created = (await logos.createWithinLimit(newLogo('old name'), 5)) as { id: string };
      const renamed = await logos.rename(account.id, created.id, 'new name');
      expect(renamed).toEqual({ ...created, name: 'new name' });
      expect(await logos.list(account.id)).toEqual([renamed]);
      expect((await logos.get(account.id, created.id))?.name).toBe('new name');
      expect((await logos.get(account.id, created.id))?.png).toEqual(new Uint8Array([137, 80, 78, 71, 1, 2, 3]));
    });

    it("never renames, reads or deletes another account's logo", async () => {
      const { logos, account, newAccount, newLogo } = await setup();
      const created = (await logos.createWithinLimit(newLogo('mine'), 5)) as { id: string };
      const other = await newAccount();
      expect(await logos.rename(other.id, created.id, 'taken')).toBeUndefined();
      expect(await logos.get(other.id, created.id)).toBeUndefined();
      expect(await logos.delete(other.id, created.id)).toBe(false);
      expect((await logos.get(account.id, created.id))?.name).toBe('mine');
      expect(await logos.rename(account.id, 'logo_missing', 'x')).toBeUndefined();
    });

    it('lists newest first, holds the count limit, and deletes', async () => {
      const { logos, account, newLogo } = await setup();
      const first = (await logos.createWithinLimit(newLogo('first', new Date(1_000)), 2)) as { id: string };
      const second = (await logos.createWithinLimit(newLogo('second', new Date(2_000)), 2)) as { id: string };
      expect(await logos.createWithinLimit(newLogo('third', new Date(3_000)), 2)).toBe('limit_reached');
      expect((await logos.list(account.id)).map((logo) => logo.name)).toEqual(['second', 'first']);
      expect(await logos.delete(account.id, first.id)).toBe(true);
      expect(await logos.delete(account.id, first.id)).toBe(false);
      expect((await logos.list(account.id)).map((logo) => logo.id)).toEqual([second.id]);
    });
  });
}
