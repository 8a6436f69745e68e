// CustomDomainStore on SQLite: the count limit checked and written in one immediate transaction, the hostname held by a
// unique index.
import type { CustomDomain, DomainStatus } from '../../domain/custom-domain.js';
import type { CustomDomainStore, NewCustomDomain } from '../../domain/ports/custom-domain-store.js';
import type { SqliteDatabase } from './database.js';

interface DomainRow {
  id: string;
  account_id: string;
  hostname: string;
  token: string;
  status: string;
  created_at: number;
  verified_at: number | null;
  checked_at: number | null;
  check_problem: string | null;
}

function toDomain(row: DomainRow): CustomDomain {
  return {
    id: row.id,
    accountId: row.account_id,
    hostname: row.hostname,
    status: row.status as DomainStatus,
    token: row.token,
    createdAt: new Date(row.created_at),
    verifiedAt: row.verified_at === null ? null : new Date(row.verified_at),
    lastCheck: row.checked_at === null ? null : { at: new Date(row.checked_at), problem: row.check_problem },
  };
}

export class SqliteCustomDomainStore implements CustomDomainStore {
  readonly #db: SqliteDatabase;
  readonly #count;
  readonly #insert;
  readonly #byHostname;
  readonly #list;
  readonly #get;
  readonly #activate;
  readonly #noteCheck;
  readonly #transition;
  readonly #due;
  readonly #expire;
  readonly #releaseExpired;
  readonly #remove;

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#count = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM custom_domains WHERE account_id = ?');
    this.#insert = db.prepare<[string, string, string, string, number], DomainRow>(
      'INSERT INTO custom_domains (id, account_id, hostname, token, status, created_at) VALUES (?, ?, ?, ?, ' +
        "'pending', ?) RETURNING *",
    );
    this.#byHostname = db.prepare<[string], DomainRow>('SELECT * FROM custom_domains WHERE hostname = ?');
    this.#list = db.prepare<[string], DomainRow>(
      'SELECT * FROM custom_domains WHERE account_id = ? ORDER BY created_at, id',
    );
    this.#get = db.prepare<[string, string], DomainRow>('SELECT * FROM custom_domains WHERE account_id = ? AND id = ?');
    this.#activate = db.prepare<[number, string], DomainRow>(
      "UPDATE custom_domains SET status = 'active', verified_at = coalesce(verified_at, ?) WHERE id = ? RETURNING *",
    );
    this.#transition = db.prepare<[string, string, string], DomainRow>(
      'UPDATE custom_domains SET status = ? WHERE id = ? AND status = ? RETURNING *',
    );
    this.#noteCheck = db.prepare<[number, string | null, string]>(
      'UPDATE custom_domains SET checked_at = ?, check_problem = ? WHERE id = ?',
    );
    this.#due = db.prepare<[string, number, number], DomainRow>(
      'SELECT * FROM custom_domains WHERE status = ? AND coalesce(checked_at, 0) < ? ORDER BY ' +
        'coalesce(checked_at, 0), id LIMIT ?',
    );
    this.#expire = db.prepare<[number]>(
      "UPDATE custom_domains SET status = 'expired' WHERE status = 'pending' AND created_at < ?",
    );
    this.#releaseExpired = db.prepare<[string]>("DELETE FROM custom_domains WHERE hostname = ? AND status = 'expired'");
    this.#remove = db.prepare<[string, string]>('DELETE FROM custom_domains WHERE account_id = ? AND id = ?');
  }

  async createWithinLimit(
    input: NewCustomDomain,
    maxDomains: number | null,
  ): Promise<CustomDomain | 'limit_reached' | 'hostname_taken'> {
    const create = this.#db.transaction((): CustomDomain | 'limit_reached' | 'hostname_taken' => {
      if (this.#byHostname.get(input.hostname)) return 'hostname_taken';
      if (maxDomains !== null && this.#count.get(input.accountId)!.n >= maxDomains) return 'limit_reached';
      return toDomain(
        this.#insert.get(input.id, input.accountId, input.hostname, input.token, input.createdAt.getTime())!,
      );
    });
    return create.immediate();
  }

  async list(accountId: string): Promise<CustomDomain[]> {
    return this.#list.all(accountId).map(toDomain);
  }

  async get(accountId: string, id: string): Promise<CustomDomain | undefined> {
    const row = this.#get.get(accountId, id);
    return row && toDomain(row);
  }

  async findByHostname(hostname: string): Promise<CustomDomain | undefined> {
    const row = this.#byHostname.get(hostname);
    return row && toDomain(row);
  }

  async activate(id: string, at: Date): Promise<CustomDomain | undefined> {
    const row = this.#activate.get(at.getTime(), id);
    return row && toDomain(row);
  }

  async noteCheck(id: string, at: Date, problem: string | null): Promise<void> {
    this.#noteCheck.run(at.getTime(), problem, id);
  }

  async transition(id: string, from: DomainStatus, to: DomainStatus): Promise<CustomDomain | undefined> {
    const row = this.#transition.get(to, id, from);
    return row && toDomain(row);
  }

  async due(status: DomainStatus, before: Date, limit: number): Promise<CustomDomain[]> {
    return this.#due.all(status, before.getTime(), limit).map(toDomain);
  }

  async expirePending(createdBefore: Date): Promise<number> {
    return this.#expire.run(createdBefore.getTime()).changes;
  }

  async releaseExpired(hostname: string): Promise<boolean> {
    return this.#releaseExpired.run(hostname).changes > 0;
  }

  async remove(accountId: string, id: string): Promise<boolean> {
    return this.#remove.run(accountId, id).changes > 0;
  }
}
