// Contract suite for the CustomDomainStore port: every adapter runs these same cases.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newDomainId, newVerificationToken } from '../../src/domain/custom-domain.js';
import type { AccountStore } from '../../src/domain/ports/account-store.js';
import type { CustomDomainStore } from '../../src/domain/ports/custom-domain-store.js';
import { createStoredAccount } from '../helpers/stored-account.js';

export function customDomainStoreContract(
  adapterName: string,
  makeStores: () => Promise<{ accounts: AccountStore; domains: CustomDomainStore }>,
): void {
  describe(`CustomDomainStore contract: ${adapterName}`, () => {
    /** A new account; `on` shares the stores of an earlier setup (two tenants of one system of record). */
    async function setup(on?: { accounts: AccountStore; domains: CustomDomainStore }) {
      const { accounts, domains } = on ?? (await makeStores());
      const account = await createStoredAccount(accounts, { prefix: 'cd' });
      const newDomain = (hostname = `h${randomUUID().slice(0, 8)}.example.com`) => ({
        id: newDomainId(),
        accountId: account.id,
        hostname,
        token: newVerificationToken(),
        createdAt: new Date(1_000),
      });
      return { accounts, domains, account, newDomain };
    }

    it('stores a pending domain, finds it by id and hostname, activates it once and deletes it', async () => {
      const { domains, account, newDomain } = await setup();
      const input = newDomain();
      const expected = { ...input, status: 'pending', verifiedAt: null, lastCheck: null };
      expect(await domains.createWithinLimit(input, 3)).toEqual(expected);
      expect(await domains.get(account.id, input.id)).toEqual(expected);
      expect(await domains.findByHostname(input.hostname)).toEqual(expected);
      expect(await domains.list(account.id)).toEqual([expected]);
      expect(await domains.activate(input.id, new Date(2_000))).toEqual({
        ...expected,
        status: 'active',
        verifiedAt: new Date(2_000),
      });
      expect((await domains.activate(input.id, new Date(3_000)))?.verifiedAt).toEqual(new Date(2_000));
      expect(await domains.activate(newDomainId(), new Date())).toBeUndefined();
      expect(await domains.remove(account.id, input.id)).toBe(true);
      expect(await domains.findByHostname(input.hostname)).toBeUndefined();
      expect(await domains.remove(account.id, input.id)).toBe(false);
    });

    it('gives a hostname to one account only, whichever asks', async () => {
      const a = await setup();
      const b = await setup(a);
      const first = a.newDomain();
      await a.domains.createWithinLimit(first, 3);
      expect(await b.domains.createWithinLimit(b.newDomain(first.hostname), 3)).toBe('hostname_taken');
      expect(await a.domains.createWithinLimit(a.newDomain(first.hostname), 3)).toBe('hostname_taken');
    });

    it('never holds more than the limit, even under concurrent creation; null is unlimited', async () => {
      const { domains, account, newDomain } = await setup();
      const results = await Promise.all(Array.from({ length: 6 }, () => domains.createWithinLimit(newDomain(), 2)));
      expect(results.filter((r) => typeof r !== 'string')).toHaveLength(2);
      expect(await domains.list(account.id)).toHaveLength(2);
      expect(await domains.createWithinLimit(newDomain(), 0)).toBe('limit_reached');
      expect(typeof (await domains.createWithinLimit(newDomain(), null))).not.toBe('string');
    });

    it('scopes reads and deletes by id to the account', async () => {
      const a = await setup();
      const b = await setup(a);
      const input = a.newDomain();
      await a.domains.createWithinLimit(input, 3);
      expect(await b.domains.get(b.account.id, input.id)).toBeUndefined();
      expect(await b.domains.remove(b.account.id, input.id)).toBe(false);
      expect(await b.domains.list(b.account.id)).toEqual([]);
      expect((await a.domains.get(a.account.id, input.id))?.hostname).toBe(input.hostname);
    });

    it('answers the domains of a status due for a check, never-checked first, and notes each check', async () => {
      const { domains, newDomain } = await setup();
      const [checked, fresh, active] = [newDomain(), newDomain(), newDomain()];
      for (const d of [checked, fresh, active]) await domains.createWithinLimit(d, null);
      await domains.activate(active.id, new Date(5_000));
      await domains.noteCheck(checked.id, new Date(10_000), 'no TXT record');
      const due = (await domains.due('pending', new Date(20_000), 1_000)).map((d) => d.id);
      expect(due.indexOf(fresh.id)).toBeGreaterThanOrEqual(0);
      expect(due.indexOf(checked.id)).toBeGreaterThan(due.indexOf(fresh.id));
      expect(due).not.toContain(active.id);
      expect((await domains.due('active', new Date(20_000), 1_000)).map((d) => d.id)).toContain(active.id);
      expect((await domains.due('pending', new Date(10_000), 1_000)).map((d) => d.id)).not.toContain(checked.id);
      expect((await domains.findByHostname(checked.hostname))?.lastCheck).toEqual({
        at: new Date(10_000),
        problem: 'no TXT record',
      });
    });

    it(
      'changes a status only from the one named; suspended domains are activated again keeping their first ' +
        'verifiedAt',
      async () => {
        const { domains, newDomain } = await setup();
        const input = newDomain();
        await domains.createWithinLimit(input, null);
        expect(await domains.transition(input.id, 'active', 'suspended')).toBeUndefined();
        await domains.activate(input.id, new Date(2_000));
        expect(await domains.transition(input.id, 'active', 'suspended')).toMatchObject({
          status: 'suspended',
          verifiedAt: new Date(2_000),
        });
        expect(await domains.transition(input.id, 'active', 'suspended')).toBeUndefined();
        expect(await domains.activate(input.id, new Date(9_000))).toMatchObject({
          status: 'active',
          verifiedAt: new Date(2_000),
        });
      },
    );

    it(
      'expires pending domains created before a time, and ' + 'releases an expired hostname (only an expired one)',
      async () => {
        const { domains, account, newDomain } = await setup();
        const old = { ...newDomain(), createdAt: new Date(1_000) };
        const young = { ...newDomain(), createdAt: new Date(50_000) };
        const provedOld = { ...newDomain(), createdAt: new Date(1_000) };
        for (const d of [old, young, provedOld]) await domains.createWithinLimit(d, null);
        await domains.activate(provedOld.id, new Date(2_000));
        expect(await domains.releaseExpired(old.hostname)).toBe(false);
        expect(await domains.expirePending(new Date(10_000))).toBeGreaterThanOrEqual(1);
        expect((await domains.get(account.id, old.id))?.status).toBe('expired');
        expect((await domains.get(account.id, young.id))?.status).toBe('pending');
        expect((await domains.get(account.id, provedOld.id))?.status).toBe('active');
        expect(await domains.releaseExpired(provedOld.hostname)).toBe(false);
        expect(await domains.releaseExpired(old.hostname)).toBe(true);
        expect(await domains.findByHostname(old.hostname)).toBeUndefined();
      },
    );
  });
}
