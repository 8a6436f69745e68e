// Contract suite for the ScanWebhookStore port: every adapter runs these same cases.
import { describe, expect, it } from 'vitest';
import type { AccountStore } from '../../src/domain/ports/account-store.js';
import type { ScanWebhookStore } from '../../src/domain/ports/scan-webhooks.js';
import { createStoredAccount } from '../helpers/stored-account.js';

export function scanWebhookStoreContract(
  adapterName: string,
  makeStores: () => Promise<{ accounts: AccountStore; scanWebhooks: ScanWebhookStore }>,
): void {
  describe(`ScanWebhookStore contract: ${adapterName}`, () => {
    async function setup() {
      const { accounts, scanWebhooks } = await makeStores();
      const account = await createStoredAccount(accounts, { prefix: 'w' });
      const endpoint = (url: string, at = new Date()) => ({
        accountId: account.id,
        url,
        events: ['code.scanned' as const],
        createdAt: at,
      });
      return { scanWebhooks, account, endpoint };
    }

    it('never holds more than the limit, even under concurrent creation; removing frees a place', async () => {
      const { scanWebhooks, account, endpoint } = await setup();
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => scanWebhooks.create(endpoint(`https://hooks.example.com/${i}`), 3)),
      );
      const created = results.filter((r) => r !== 'limit_reached');
      expect(created).toHaveLength(3);
      expect(results.filter((r) => r === 'limit_reached')).toHaveLength(5);
      expect(await scanWebhooks.list(account.id)).toHaveLength(3);
      const first = created[0] as Exclude<(typeof created)[number], 'limit_reached'>;
      expect(await scanWebhooks.remove(account.id, first.id)).toBe(true);
      expect(await scanWebhooks.remove(account.id, first.id)).toBe(false);
      expect(typeof (await scanWebhooks.create(endpoint('https://hooks.example.com/again'), 3))).toBe('object');
    });

    it('lists oldest first with every field, and scopes every operation to the owning account', async () => {
      const a = await setup();
      const b = await setup();
      const older = await a.scanWebhooks.create(
        a.endpoint('https://hooks.example.com/old', new Date(Date.UTC(2026, 0, 1))),
        5,
      );
      const newer = await a.scanWebhooks.create(
        a.endpoint('https://hooks.example.com/new', new Date(Date.UTC(2026, 0, 2))),
        5,
      );
      expect(await a.scanWebhooks.list(a.account.id)).toEqual([older, newer]);
      expect(older).toMatchObject({
        accountId: a.account.id,
        url: 'https://hooks.example.com/old',
        events: ['code.scanned'],
        createdAt: new Date(Date.UTC(2026, 0, 1)),
      });
      expect(await b.scanWebhooks.list(b.account.id)).toEqual([]);
      expect(await b.scanWebhooks.remove(b.account.id, (older as { id: string }).id)).toBe(false);
      expect(await a.scanWebhooks.list(a.account.id)).toHaveLength(2);
    });
  });
}
