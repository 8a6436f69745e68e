// AccountStore on MongoDB: one account per identity by unique index, found again on a concurrent first sign-in.
import type { BillingState, SubscriptionStatus } from '../../domain/billing.js';
import type { Account, AccountIdentity, AccountStore, NewAccount } from '../../domain/ports/account-store.js';
import type { PlanId } from '../../domain/plan-catalogue.js';
import { DEFAULT_SCAN_PRIVACY, isScanPrivacy, type ScanPrivacy } from '../../domain/scan-privacy.js';
import { newId } from '../../domain/record-id.js';
import { isDuplicateKey } from './connection.js';
import type { AccountDoc, MongoModels } from './models.js';

function toBilling(billing: NonNullable<AccountDoc['billing']>): BillingState {
  return {
    customerId: billing.customerId,
    subscriptionId: billing.subscriptionId ?? undefined,
    status: (billing.status ?? undefined) as SubscriptionStatus | undefined,
    currentPeriodEnd: billing.currentPeriodEnd ?? undefined,
    updatedAt: billing.updatedAt,
  };
}

function toAccount(doc: AccountDoc): Account {
  return {
    id: doc._id,
    email: doc.email,
    plan: doc.plan as PlanId,
    identity: { provider: doc.identity.provider as AccountIdentity['provider'], subject: doc.identity.subject },
    createdAt: doc.createdAt,
    ...(doc.billing ? { billing: toBilling(doc.billing) } : {}),
    scanPrivacy: isScanPrivacy(doc.scanPrivacy) ? doc.scanPrivacy : DEFAULT_SCAN_PRIVACY,
  };
}

/** The collections this store reads and writes. */
type AccountModels = Pick<MongoModels, 'accounts' | 'billingEvents'>;

export class MongoAccountStore implements AccountStore {
  readonly #models: AccountModels;

  constructor(models: AccountModels) {
    this.#models = models;
  }

  async create(input: NewAccount): Promise<Account> {
    const filter = { 'identity.provider': input.identity.provider, 'identity.subject': input.identity.subject };
    // The identity fields come from the filter's equalities on insert; setting `identity` too would conflict with them.
    const insert = { _id: newId('acc'), email: input.email, plan: input.plan, createdAt: input.createdAt };
    try {
      // $setOnInsert: an identity that exists comes back unchanged.
      const doc = await this.#models.accounts
        .findOneAndUpdate(filter, { $setOnInsert: insert }, { upsert: true, new: true })
        .lean<AccountDoc>();
      if (doc) return toAccount(doc);
    } catch (error) {
      // Two upserts raced and one lost on the unique index: the winner's account is the one.
      if (!isDuplicateKey(error)) throw error;
    }
    const existing = await this.#models.accounts.findOne(filter).lean<AccountDoc>();
    if (!existing) throw new Error('account vanished right after its creation');
    return toAccount(existing);
  }

  async findById(id: string): Promise<Account | undefined> {
    const doc = await this.#models.accounts.findById(id).lean<AccountDoc>();
    return doc ? toAccount(doc) : undefined;
  }

  async findByIdentity(identity: AccountIdentity): Promise<Account | undefined> {
    const doc = await this.#models.accounts
      .findOne({ 'identity.provider': identity.provider, 'identity.subject': identity.subject })
      .lean<AccountDoc>();
    return doc ? toAccount(doc) : undefined;
  }

  async findByEmail(email: string): Promise<Account[]> {
    const docs = await this.#models.accounts.find({ email }).sort({ createdAt: 1, _id: 1 }).lean<AccountDoc[]>();
    return docs.map(toAccount);
  }

  async setPlan(id: string, plan: PlanId): Promise<Account | undefined> {
    const doc = await this.#models.accounts.findByIdAndUpdate(id, { $set: { plan } }, { new: true }).lean<AccountDoc>();
    return doc ? toAccount(doc) : undefined;
  }

  async setScanPrivacy(id: string, scanPrivacy: ScanPrivacy): Promise<Account | undefined> {
    const doc = await this.#models.accounts
      .findByIdAndUpdate(id, { $set: { scanPrivacy } }, { new: true })
      .lean<AccountDoc>();
    return doc ? toAccount(doc) : undefined;
  }

  async countByPlan(): Promise<Map<PlanId, number>> {
    const groups = await this.#models.accounts.aggregate<{ _id: string; accounts: number }>([
      { $group: { _id: '$plan', accounts: { $sum: 1 } } },
    ]);
    return new Map(groups.map((group) => [group._id, group.accounts]));
  }

  async setBilling(id: string, billing: BillingState): Promise<Account | undefined> {
    const stored = {
      customerId: billing.customerId,
      subscriptionId: billing.subscriptionId ?? null,
      status: billing.status ?? null,
      currentPeriodEnd: billing.currentPeriodEnd ?? null,
      updatedAt: billing.updatedAt,
    };
    const doc = await this.#models.accounts
      .findByIdAndUpdate(id, { $set: { billing: stored } }, { new: true })
      .lean<AccountDoc>();
    return doc ? toAccount(doc) : undefined;
  }

  async findByBillingCustomer(customerId: string): Promise<Account | undefined> {
    const doc = await this.#models.accounts
      .findOne({ 'billing.customerId': customerId })
      .sort({ createdAt: 1, _id: 1 })
      .lean<AccountDoc>();
    return doc ? toAccount(doc) : undefined;
  }

  async hasBillingEvent(eventId: string): Promise<boolean> {
    return (await this.#models.billingEvents.exists({ _id: eventId })) !== null;
  }

  async noteBillingEvent(eventId: string, at: Date): Promise<boolean> {
    try {
      await this.#models.billingEvents.create({ _id: eventId, receivedAt: at });
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }
}
