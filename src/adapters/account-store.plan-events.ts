// AccountStore decorator: a plan or scan-privacy change is broadcast, so every instance drops what it cached of the
// account.
import type { BillingState } from '../domain/billing.js';
import type { PlanId } from '../domain/plan-catalogue.js';
import type { ScanPrivacy } from '../domain/scan-privacy.js';
import type { Account, AccountIdentity, AccountStore, NewAccount } from '../domain/ports/account-store.js';
import type { InvalidationBus } from '../domain/ports/invalidation-bus.js';

export class PlanChangePublishingAccountStore implements AccountStore {
  readonly #inner: AccountStore;
  readonly #bus: InvalidationBus;
  readonly #changedHere: (accountId: string) => void;

  /** `changedHere`: this instance's own caches, told at once rather than when the broadcast comes back. */
  constructor(inner: AccountStore, bus: InvalidationBus, changedHere: (accountId: string) => void = () => {}) {
    this.#inner = inner;
    this.#bus = bus;
    this.#changedHere = changedHere;
  }

  async setPlan(id: string, plan: PlanId): Promise<Account | undefined> {
    const updated = await this.#inner.setPlan(id, plan);
    if (updated) await this.#bus.publish({ accountId: id });
    return updated;
  }

  async setScanPrivacy(id: string, scanPrivacy: ScanPrivacy): Promise<Account | undefined> {
    const updated = await this.#inner.setScanPrivacy(id, scanPrivacy);
    if (updated) {
      this.#changedHere(id);
      await this.#bus.publish({ accountId: id });
    }
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
