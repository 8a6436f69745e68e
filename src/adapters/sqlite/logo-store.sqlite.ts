// LogoStore on SQLite: PNG blobs per account, the count limit checked and written in one immediate transaction.
import type { LogoRecord, LogoStore, NewLogo, StoredLogo } from '../../domain/ports/logo-store.js';
import type { SqliteDatabase } from './database.js';
import { newId } from '../../domain/record-id.js';

interface LogoRow {
  id: string;
  account_id: string;
  name: string;
  width: number;
  height: number;
  bytes: number;
  digest: string;
  created_at: number;
}

const RECORD_COLUMNS = 'id, account_id, name, width, height, length(png) AS bytes, digest, created_at';

function toRecord(row: LogoRow): LogoRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    mediaType: 'image/png',
    width: row.width,
    height: row.height,
    bytes: row.bytes,
    digest: row.digest,
    createdAt: new Date(row.created_at),
  };
}

export class SqliteLogoStore implements LogoStore {
  readonly #db: SqliteDatabase;
  readonly #count;
  readonly #insert;
  readonly #list;
  readonly #get;
  readonly #delete;
  readonly #rename;

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#count = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM logos WHERE account_id = ?');
    this.#insert = db.prepare<unknown[]>(
      'INSERT INTO logos (id, account_id, name, png, width, height, digest, created_at) VALUES (?, ?, ?, ?, ?, ' +
        '?, ?, ?)',
    );
    this.#list = db.prepare<[string], LogoRow>(
      `SELECT ${RECORD_COLUMNS} FROM logos WHERE account_id = ? ORDER BY created_at DESC, id`,
    );
    this.#get = db.prepare<[string, string], LogoRow & { png: Buffer }>(
      `SELECT ${RECORD_COLUMNS}, png FROM logos WHERE account_id = ? AND id = ?`,
    );
    this.#delete = db.prepare<[string, string]>('DELETE FROM logos WHERE account_id = ? AND id = ?');
    this.#rename = db.prepare<[string, string, string], LogoRow>(
      `UPDATE logos SET name = ? WHERE account_id = ? AND id = ? RETURNING ${RECORD_COLUMNS}`,
    );
  }

  async createWithinLimit(input: NewLogo, maxLogos: number | null): Promise<LogoRecord | 'limit_reached'> {
    const id = newId('logo');
    const created = this.#db
      .transaction(() => {
        if (maxLogos !== null && this.#count.get(input.accountId)!.n >= maxLogos) return false;
        this.#insert.run(
          id,
          input.accountId,
          input.name,
          Buffer.from(input.png),
          input.width,
          input.height,
          input.digest,
          input.createdAt.getTime(),
        );
        return true;
      })
      .immediate();
    if (!created) return 'limit_reached';
    return {
      id,
      accountId: input.accountId,
      name: input.name,
      mediaType: 'image/png',
      width: input.width,
      height: input.height,
      bytes: input.png.byteLength,
      digest: input.digest,
      createdAt: input.createdAt,
    };
  }

  async list(accountId: string): Promise<LogoRecord[]> {
    return this.#list.all(accountId).map(toRecord);
  }

  async get(accountId: string, id: string): Promise<StoredLogo | undefined> {
    const row = this.#get.get(accountId, id);
    return row ? { ...toRecord(row), png: new Uint8Array(row.png) } : undefined;
  }

  async rename(accountId: string, id: string, name: string): Promise<LogoRecord | undefined> {
    const row = this.#rename.get(name, accountId, id);
    return row ? toRecord(row) : undefined;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return this.#delete.run(accountId, id).changes > 0;
  }
}
