// AccountStore on SQLite.
import type { Account, AccountIdentity, AccountStore, NewAccount } from '../../domain/ports/account-store.js';
import type { PlanId } from '../../domain/plan-catalogue.js';
import type { SqliteDatabase } from './database.js';
import { newId } from './ids.js';

interface AccountRow {
  id: string;
  email: string;
  plan: string;
  identity_provider: string;
  identity_subject: string;
  created_at: number;
}

function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    email: row.email,
    plan: row.plan as PlanId,
    identity: { provider: row.identity_provider as AccountIdentity['provider'], subject: row.identity_subject },
    createdAt: new Date(row.created_at),
  };
}

export class SqliteAccountStore implements AccountStore {
  readonly #insert;
  readonly #byId;
  readonly #byIdentity;
  readonly #byEmail;
  readonly #setPlan;
  readonly #countByPlan;

  constructor(db: SqliteDatabase) {
    // ON CONFLICT DO NOTHING + read back: concurrent first sign-ins converge on one account.
    this.#insert = db.prepare(
      `INSERT INTO accounts (id, email, plan, identity_provider, identity_subject, created_at)
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (identity_provider, identity_subject) DO NOTHING`,
    );
    this.#byId = db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE id = ?');
    this.#byIdentity = db.prepare<[string, string], AccountRow>('SELECT * FROM accounts WHERE identity_provider = ? AND identity_subject = ?');
    this.#byEmail = db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE email = ? ORDER BY created_at, id');
    this.#setPlan = db.prepare<[string, string], AccountRow>('UPDATE accounts SET plan = ? WHERE id = ? RETURNING *');
    this.#countByPlan = db.prepare<[], { plan: string; accounts: number }>('SELECT plan, count(*) AS accounts FROM accounts GROUP BY plan');
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

  async countByPlan(): Promise<Map<PlanId, number>> {
    return new Map(this.#countByPlan.all().map((row) => [row.plan, row.accounts]));
  }
}
