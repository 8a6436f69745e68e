// DesignStore on SQLite: options as JSON per account, the count limit checked and written in one immediate transaction.
import type { DesignOptions } from '../../domain/design.js';
import type { DesignChange, DesignRecord, DesignStore, NewDesign } from '../../domain/ports/design-store.js';
import type { OwnFields } from '../record-fields.js';
import type { SqliteDatabase } from './database.js';

/** A designs row read under the record's field names: the options as JSON text, the times in epoch milliseconds. */
interface DesignRow {
  id: string;
  accountId: string;
  name: string;
  options: string;
  createdAt: number;
  updatedAt: number;
}

const COLUMNS = 'id, account_id AS accountId, name, options, created_at AS createdAt, updated_at AS updatedAt';

function toRecord({ options, createdAt, updatedAt, ...fields }: DesignRow): DesignRecord {
  return {
    ...(fields satisfies OwnFields<DesignRecord, typeof fields>),
    options: JSON.parse(options) as DesignOptions,
    createdAt: new Date(createdAt),
    updatedAt: new Date(updatedAt),
  };
}

export class SqliteDesignStore implements DesignStore {
  readonly #db: SqliteDatabase;
  readonly #count;
  readonly #insert;
  readonly #list;
  readonly #get;
  readonly #update;
  readonly #delete;

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#count = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM designs WHERE account_id = ?');
    this.#insert = db.prepare<unknown[]>(
      'INSERT INTO designs (id, account_id, name, options, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.#list = db.prepare<[string], DesignRow>(
      `SELECT ${COLUMNS} FROM designs WHERE account_id = ? ORDER BY created_at DESC, id`,
    );
    this.#get = db.prepare<[string, string], DesignRow>(
      `SELECT ${COLUMNS} FROM designs WHERE account_id = ? AND id = ?`,
    );
    this.#update = db.prepare<[string | null, string | null, number, string, string], DesignRow>(
      'UPDATE designs SET name = coalesce(?, name), options = coalesce(?, options), updated_at = ? WHERE ' +
        `account_id = ? AND id = ? RETURNING ${COLUMNS}`,
    );
    this.#delete = db.prepare<[string, string]>('DELETE FROM designs WHERE account_id = ? AND id = ?');
  }

  async createWithinLimit(input: NewDesign, maxDesigns: number | null): Promise<DesignRecord | 'limit_reached'> {
    const at = input.createdAt.getTime();
    const created = this.#db
      .transaction(() => {
        if (maxDesigns !== null && this.#count.get(input.accountId)!.n >= maxDesigns) return false;
        this.#insert.run(input.id, input.accountId, input.name, JSON.stringify(input.options), at, at);
        return true;
      })
      .immediate();
    if (!created) return 'limit_reached';
    return {
      id: input.id,
      accountId: input.accountId,
      name: input.name,
      options: input.options,
      createdAt: input.createdAt,
      updatedAt: input.createdAt,
    };
  }

  async list(accountId: string): Promise<DesignRecord[]> {
    return this.#list.all(accountId).map(toRecord);
  }

  async get(accountId: string, id: string): Promise<DesignRecord | undefined> {
    const row = this.#get.get(accountId, id);
    return row && toRecord(row);
  }

  async update(accountId: string, id: string, change: DesignChange, at: Date): Promise<DesignRecord | undefined> {
    const row = this.#update.get(
      change.name ?? null,
      change.options ? JSON.stringify(change.options) : null,
      at.getTime(),
      accountId,
      id,
    );
    return row && toRecord(row);
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return this.#delete.run(accountId, id).changes > 0;
  }
}
