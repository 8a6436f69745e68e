// AccountStore on SQLite.
import type { Account, AccountIdentity, AccountStore, NewAccount } from '../../domain/ports/account-store.js';
import type { BillingState, SubscriptionStatus } from '../../domain/billing.js';
import type { PlanId } from '../../domain/plan-catalogue.js';
import { DEFAULT_SCAN_PRIVACY, isScanPrivacy, type ScanPrivacy } from '../../domain/scan-privacy.js';
import type { SqliteDatabase } from './database.js';
import { newId } from '../../domain/record-id.js';

/** How long an applied billing event's id is kept: Stripe retries a delivery for up to three days. */
const BILLING_EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

interface AccountRow {
  id: string;
  email: string;
  plan: string;
  identity_provider: string;
  identity_subject: string;
  created_at: number;
  billing_customer_id: string | null;
  billing_subscription_id: string | null;
  billing_status: string | null;
  billing_period_end: number | null;
  billing_updated_at: number | null;
  scan_privacy: string | null;
}

function toBilling(row: AccountRow): BillingState | undefined {
  if (row.billing_customer_id === null) return undefined;
  return {
    customerId: row.billing_customer_id,
    subscriptionId: row.billing_subscription_id ?? undefined,
    status: (row.billing_status ?? undefined) as SubscriptionStatus | undefined,
    currentPeriodEnd: row.billing_period_end === null ? undefined : new Date(row.billing_period_end),
    updatedAt: new Date(row.billing_updated_at ?? 0),
  };
}

function toAccount(row: AccountRow): Account {
  const billing = toBilling(row);
  return {
    id: row.id,
    email: row.email,
    plan: row.plan as PlanId,
    identity: { provider: row.identity_provider as AccountIdentity['provider'], subject: row.identity_subject },
    createdAt: new Date(row.created_at),
    ...(billing ? { billing } : {}),
    scanPrivacy: isScanPrivacy(row.scan_privacy) ? row.scan_privacy : DEFAULT_SCAN_PRIVACY,
  };
}

export class SqliteAccountStore implements AccountStore {
  readonly #insert;
  readonly #byId;
  readonly #byIdentity;
  readonly #byEmail;
  readonly #setPlan;
  readonly #setScanPrivacy;
  readonly #countByPlan;
  readonly #setBilling;
  readonly #byBillingCustomer;
  readonly #hasEvent;
  readonly #noteEvent;
  readonly #forgetEvents;

  constructor(db: SqliteDatabase) {
    // ON CONFLICT DO NOTHING + read back: concurrent first sign-ins converge on one account.
    this.#insert = db.prepare(
      `INSERT INTO accounts (id, email, plan, identity_provider, identity_subject, created_at)
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (identity_provider, identity_subject) DO NOTHING`,
    );
    this.#byId = db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE id = ?');
    this.#byIdentity = db.prepare<[string, string], AccountRow>(
      'SELECT * FROM accounts WHERE identity_provider = ? AND identity_subject = ?',
    );
    this.#byEmail = db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE email = ? ORDER BY created_at, id');
    this.#setPlan = db.prepare<[string, string], AccountRow>('UPDATE accounts SET plan = ? WHERE id = ? RETURNING *');
    this.#setScanPrivacy = db.prepare<[string, string], AccountRow>(
      'UPDATE accounts SET scan_privacy = ? WHERE id = ? RETURNING *',
    );
    this.#countByPlan = db.prepare<[], { plan: string; accounts: number }>(
      'SELECT plan, count(*) AS accounts FROM accounts GROUP BY plan',
    );
    this.#setBilling = db.prepare<[string, string | null, string | null, number | null, number, string], AccountRow>(
      `UPDATE accounts SET billing_customer_id = ?, billing_subscription_id = ?, billing_status = ?,
         billing_period_end = ?, billing_updated_at = ?
       WHERE id = ? RETURNING *`,
    );
    this.#byBillingCustomer = db.prepare<[string], AccountRow>(
      'SELECT * FROM accounts WHERE billing_customer_id = ? ORDER BY created_at, id LIMIT 1',
    );
    this.#hasEvent = db.prepare<[string], { id: string }>('SELECT id FROM billing_events WHERE id = ?');
    this.#noteEvent = db.prepare<[string, number]>(
      'INSERT INTO billing_events (id, received_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING',
    );
    this.#forgetEvents = db.prepare<[number]>('DELETE FROM billing_events WHERE received_at < ?');
  }

  async create(input: NewAccount): Promise<Account> {
    const { provider, subject } = input.identity;
    this.#insert.run(newId('acc'), input.email, input.plan, provider, subject, input.createdAt.getTime());
    return toAccount(this.#byIdentity.get(provider, subject)!);
  }

  async findById(id: string): Promise<Account | undefined> {
    const row = this.#byId.get(id);
    return row && toAccount(row);
  }

  async findByIdentity(identity: AccountIdentity): Promise<Account | undefined> {
    const row = this.#byIdentity.get(identity.provider, identity.subject);
    return row && toAccount(row);
  }

  async findByEmail(email: string): Promise<Account[]> {
    return this.#byEmail.all(email).map(toAccount);
  }

  async setPlan(id: string, plan: PlanId): Promise<Account | undefined> {
    const row = this.#setPlan.get(plan, id);
    return row && toAccount(row);
  }

  async setScanPrivacy(id: string, scanPrivacy: ScanPrivacy): Promise<Account | undefined> {
    const row = this.#setScanPrivacy.get(scanPrivacy, id);
    return row && toAccount(row);
  }

  async countByPlan(): Promise<Map<PlanId, number>> {
    return new Map(this.#countByPlan.all().map((row) => [row.plan, row.accounts]));
  }

  async setBilling(id: string, billing: BillingState): Promise<Account | undefined> {
    const row = this.#setBilling.get(
      billing.customerId,
      billing.subscriptionId ?? null,
      billing.status ?? null,
      billing.currentPeriodEnd?.getTime() ?? null,
      billing.updatedAt.getTime(),
      id,
    );
    return row && toAccount(row);
  }

  async findByBillingCustomer(customerId: string): Promise<Account | undefined> {
    const row = this.#byBillingCustomer.get(customerId);
    return row && toAccount(row);
  }

  async hasBillingEvent(eventId: string): Promise<boolean> {
    return this.#hasEvent.get(eventId) !== undefined;
  }

  async noteBillingEvent(eventId: string, at: Date): Promise<boolean> {
    this.#forgetEvents.run(at.getTime() - BILLING_EVENT_RETENTION_MS);
    return this.#noteEvent.run(eventId, at.getTime()).changes === 1;
  }
}
