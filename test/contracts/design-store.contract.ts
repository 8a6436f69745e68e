// Contract suite for the DesignStore port: every adapter runs these same cases.
import { describe, expect, it } from 'vitest';
import { newDesignId } from '../../src/domain/design.js';
import type { AccountStore } from '../../src/domain/ports/account-store.js';
import type { DesignStore } from '../../src/domain/ports/design-store.js';
import { createStoredAccount } from '../helpers/stored-account.js';

export function designStoreContract(
  adapterName: string,
  makeStores: () => Promise<{ accounts: AccountStore; designs: DesignStore }>,
): void {
  describe(`DesignStore contract: ${adapterName}`, () => {
    async function setup() {
      const { accounts, designs } = await makeStores();
      const account = await createStoredAccount(accounts, { prefix: 'd' });
      const newDesign = (name = 'd') => ({
        id: newDesignId(),
        accountId: account.id,
        name,
        options: { size: 300, darkColor: '#112233', logo: { id: 'logo_x', scale: 0.2 }, frame: { text: 'Scan' } },
        createdAt: new Date(1_000),
      });
      return { designs, account, newDesign };
    }

    it('gives back what it stored, changes name and options, and deletes', async () => {
      const { designs, account, newDesign } = await setup();
      const input = newDesign('brand');
      const created = await designs.createWithinLimit(input, 10);
      const expected = {
        id: input.id,
        accountId: account.id,
        name: 'brand',
        options: input.options,
        createdAt: new Date(1_000),
        updatedAt: new Date(1_000),
      };
      expect(created).toEqual(expected);
      expect(await designs.get(account.id, input.id)).toEqual(expected);
      expect(await designs.list(account.id)).toEqual([expected]);
      expect(await designs.update(account.id, input.id, { name: 'renamed' }, new Date(2_000))).toEqual({
        ...expected,
        name: 'renamed',
        updatedAt: new Date(2_000),
      });
      expect(
        (await designs.update(account.id, input.id, { options: { margin: 1 } }, new Date(3_000)))?.options,
      ).toEqual({ margin: 1 });
      expect(await designs.delete(account.id, input.id)).toBe(true);
      expect(await designs.get(account.id, input.id)).toBeUndefined();
      expect(await designs.delete(account.id, input.id)).toBe(false);
    });

    it('never holds more than the limit, even under concurrent creation; null is unlimited', async () => {
      const { designs, account, newDesign } = await setup();
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => designs.createWithinLimit(newDesign(`d${i}`), 3)),
      );
      expect(results.filter((r) => r !== 'limit_reached')).toHaveLength(3);
      expect(await designs.list(account.id)).toHaveLength(3);
      expect(await designs.createWithinLimit(newDesign(), null)).not.toBe('limit_reached');
    });

    it('scopes every read, change and delete to the account', async () => {
      const a = await setup();
      const b = await setup();
      const input = a.newDesign();
      await a.designs.createWithinLimit(input, 10);
      expect(await b.designs.get(b.account.id, input.id)).toBeUndefined();
      expect(await b.designs.update(b.account.id, input.id, { name: 'x' }, new Date())).toBeUndefined();
      expect(await b.designs.delete(b.account.id, input.id)).toBe(false);
      expect(await b.designs.list(b.account.id)).toEqual([]);
      expect((await a.designs.get(a.account.id, input.id))?.name).toBe('d');
    });
  });
}
