// AccountStore decorator: a plan change is broadcast, so every instance drops the cached credentials that carry the old plan.
import type { BillingState } from '../domain/billing.js';
import type { PlanId } from '../domain/plan-catalogue.js';
import type { Account, AccountIdentity, AccountStore, NewAccount } from '../domain/ports/account-store.js';
import type { InvalidationBus } from './redis/invalidation-bus.redis.js';

export class PlanChangePublishingAccountStore implements AccountStore {
  readonly #inner: AccountStore;
  readonly #bus: InvalidationBus;

  constructor(inner: AccountStore, bus: InvalidationBus) {
    this.#inner = inner;
    this.#bus = bus;
  }

  async setPlan(id: string, plan: PlanId): Promise<Account | undefined> {
    const updated = await this.#inner.setPlan(id, plan);
    if (updated) await this.#bus.publish({ accountId: id });
    return updated;
  }

  create(input: NewAccount): Promise<Account> {
    return this.#inner.create(input);
  }

  findById(id: string): Promise<Account | undefined> {
    return this.#inner.findById(id);
  }

  findByIdentity(identity: AccountIdentity): Promise<Account | undefined> {
    return this.#inner.findByIdentity(identity);
  }

  findByEmail(email: string): Promise<Account[]> {
    return this.#inner.findByEmail(email);
  }

  countByPlan(): Promise<Map<PlanId, number>> {
    return this.#inner.countByPlan();
  }

  // The billing state carries no credential: only the plan it leads to (setPlan) is pushed.
  setBilling(id: string, billing: BillingState): Promise<Account | undefined> {
    return this.#inner.setBilling(id, billing);
  }

  findByBillingCustomer(customerId: string): Promise<Account | undefined> {
    return this.#inner.findByBillingCustomer(customerId);
  }

  hasBillingEvent(eventId: string): Promise<boolean> {
    return this.#inner.hasBillingEvent(eventId);
  }

  noteBillingEvent(eventId: string, at: Date): Promise<boolean> {
    return this.#inner.noteBillingEvent(eventId, at);
  }
}
