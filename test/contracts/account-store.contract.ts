// Contract suite for the AccountStore port: every adapter runs these same cases.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AccountStore } from '../../src/domain/ports/account-store.js';
import { createStoredAccount } from '../helpers/stored-account.js';

export function accountStoreContract(adapterName: string, makeStore: () => Promise<AccountStore> | AccountStore): void {
  describe(`AccountStore contract: ${adapterName}`, () => {
    const unique = () => `u-${randomUUID()}`;

    it('creates an account and finds it by id, identity and e-mail', async () => {
      const store = await makeStore();
      const subject = unique();
      const created = await store.create({
        email: `${subject}@example.com`,
        plan: 'free',
        identity: { provider: 'google', subject },
        createdAt: new Date(),
      });
      expect(await store.findById(created.id)).toEqual(created);
      expect(await store.findByIdentity({ provider: 'google', subject })).toEqual(created);
      expect(await store.findByEmail(`${subject}@example.com`)).toEqual([created]);
    });

    it('makes one account per identity, even when created twice at once', async () => {
      const store = await makeStore();
      const identity = { provider: 'microsoft' as const, subject: `tid:${unique()}` };
      const [a, b] = await Promise.all([
        store.create({ email: 'same@example.com', plan: 'free', identity, createdAt: new Date() }),
        store.create({ email: 'same@example.com', plan: 'pro', identity, createdAt: new Date() }),
      ]);
      expect(a.id).toBe(b.id);
      expect(a.plan).toBe(b.plan);
    });

    it('keeps accounts of different identities apart even when they share an e-mail', async () => {
      const store = await makeStore();
      const email = `${unique()}@example.com`;
      const google = await store.create({
        email,
        plan: 'free',
        identity: { provider: 'google', subject: unique() },
        createdAt: new Date(1000),
      });
      const microsoft = await store.create({
        email,
        plan: 'free',
        identity: { provider: 'microsoft', subject: unique() },
        createdAt: new Date(2000),
      });
      expect(google.id).not.toBe(microsoft.id);
      expect((await store.findByEmail(email)).map((a) => a.id)).toEqual([google.id, microsoft.id]);
    });

    it('counts the accounts on each plan in use, following plan changes', async () => {
      const store = await makeStore();
      // A plan id of this run alone: the store may hold other cases' accounts.
      const [gold, silver] = [`gold-${unique().slice(2, 10)}`, `silver-${unique().slice(2, 10)}`];
      const make = (plan: string) =>
        store.create({
          email: `${unique()}@example.com`,
          plan,
          identity: { provider: 'local', subject: unique() },
          createdAt: new Date(),
        });
      const first = await make(gold);
      await make(gold);
      await make(silver);
      await store.setPlan(first.id, silver);
      const counts = await store.countByPlan();
      expect(counts.get(gold)).toBe(1);
      expect(counts.get(silver)).toBe(2);
    });

    it('keeps scan privacy at country until it is changed, and keeps a change apart from the plan', async () => {
      const store = await makeStore();
      const created = await createStoredAccount(store, { prefix: 'u', plan: 'free' });
      expect(created.scanPrivacy).toBe('country');
      expect((await store.setScanPrivacy(created.id, 'none'))?.scanPrivacy).toBe('none');
      await store.setPlan(created.id, 'pro');
      expect(await store.findById(created.id)).toMatchObject({ plan: 'pro', scanPrivacy: 'none' });
      expect((await store.setScanPrivacy(created.id, 'city'))?.scanPrivacy).toBe('city');
      expect(await store.setScanPrivacy('acc_missing', 'none')).toBeUndefined();
    });

    it('changes the plan, and reports a missing account as undefined', async () => {
      const store = await makeStore();
      const created = await createStoredAccount(store, { prefix: 'u', plan: 'free' });
      expect((await store.setPlan(created.id, 'business'))?.plan).toBe('business');
      expect((await store.findById(created.id))?.plan).toBe('business');
      expect(await store.setPlan('acc_missing', 'pro')).toBeUndefined();
      expect(await store.findById('acc_missing')).toBeUndefined();
    });

    it('keeps the billing state apart from the plan, and finds the account by its billing customer', async () => {
      const store = await makeStore();
      const created = await createStoredAccount(store, { prefix: 'u', plan: 'free' });
      expect(created.billing).toBeUndefined();
      const customerId = `cus_${unique()}`;
      const billing = {
        customerId,
        subscriptionId: `sub_${unique()}`,
        status: 'active' as const,
        currentPeriodEnd: new Date(Date.UTC(2031, 0, 31)),
        updatedAt: new Date(Date.UTC(2031, 0, 1, 12)),
      };
      const updated = await store.setBilling(created.id, billing);
      expect(updated?.billing).toEqual(billing);
      expect(updated?.plan).toBe('free');
      expect((await store.findById(created.id))?.billing).toEqual(billing);
      expect((await store.findByBillingCustomer(customerId))?.id).toBe(created.id);
      expect(await store.findByBillingCustomer(`cus_${unique()}`)).toBeUndefined();
      // A state without a subscription (a customer whose subscription is not known yet) replaces the whole state.
      const linkedOnly = {
        customerId,
        subscriptionId: undefined,
        status: undefined,
        currentPeriodEnd: undefined,
        updatedAt: new Date(Date.UTC(2031, 0, 2)),
      };
      await store.setBilling(created.id, linkedOnly);
      expect((await store.findById(created.id))?.billing).toEqual(linkedOnly);
      expect(await store.setBilling('acc_missing', billing)).toBeUndefined();
    });

    it('notes a billing event once: the first note is true, every later one false', async () => {
      const store = await makeStore();
      const eventId = `evt_${unique()}`;
      expect(await store.hasBillingEvent(eventId)).toBe(false);
      expect(await store.noteBillingEvent(eventId, new Date())).toBe(true);
      expect(await store.hasBillingEvent(eventId)).toBe(true);
      expect(await store.noteBillingEvent(eventId, new Date())).toBe(false);
      expect(await store.hasBillingEvent(`evt_${unique()}`)).toBe(false);
    });
  });
}
