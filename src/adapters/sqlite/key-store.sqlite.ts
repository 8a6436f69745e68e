// KeyStore on SQLite: hashed keys, atomic active-key limit, tenant-scoped reads and writes.
import type { ApiKeyRecord, Credential, KeyStore, NewApiKey } from '../../domain/ports/key-store.js';
import type { Actor } from '../../domain/actor.js';
import { scopesFromStore, scopesToStore } from '../../domain/key-scope.js';
import type { PlanId } from '../../domain/plan-catalogue.js';
import type { SqliteDatabase } from './database.js';
import { newId } from '../../domain/record-id.js';

interface KeyRow {
  id: string;
  account_id: string;
  name: string;
  hint: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  scopes: string | null;
  expires_at: number | null;
  created_by: string | null;
}

interface CredentialRow {
  key_id: string;
  account_id: string;
  plan: string;
  hint: string;
  scopes: string | null;
  expires_at: number | null;
}

const KEY_COLUMNS = 'id, account_id, name, hint, created_at, last_used_at, revoked_at, scopes, expires_at, created_by';

function scopesOf(stored: string | null) {
  return scopesFromStore(stored === null ? null : (JSON.parse(stored) as string[]));
}

function toRecord(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    hint: row.hint,
    createdAt: new Date(row.created_at),
    lastUsedAt: row.last_used_at === null ? undefined : new Date(row.last_used_at),
    revokedAt: row.revoked_at === null ? undefined : new Date(row.revoked_at),
    scopes: scopesOf(row.scopes),
    expiresAt: row.expires_at === null ? undefined : new Date(row.expires_at),
    createdBy: row.created_by === null ? undefined : (JSON.parse(row.created_by) as Actor),
  };
}

export class SqliteKeyStore implements KeyStore {
  readonly #db: SqliteDatabase;
  readonly #countActive;
  readonly #insert;
  readonly #credential;
  readonly #list;
  readonly #revoke;
  readonly #byAccountAndId;
  readonly #touch;

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#countActive = db.prepare<[string], { n: number }>(
      'SELECT count(*) AS n FROM api_keys WHERE account_id = ? AND revoked_at IS NULL',
    );
    this.#insert = db.prepare<unknown[], KeyRow>(
      `INSERT INTO api_keys (id, account_id, name, hash, hint, created_at, scopes, expires_at, created_by)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${KEY_COLUMNS}`,
    );
    this.#credential = db.prepare<[string], CredentialRow>(
      `SELECT k.id AS key_id, k.account_id, a.plan, k.hint, k.scopes, k.expires_at
       FROM api_keys k JOIN accounts a ON a.id = k.account_id
       WHERE k.hash = ? AND k.revoked_at IS NULL`,
    );
    this.#list = db.prepare<[string], KeyRow>(
      `SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = ? ORDER BY created_at DESC, id`,
    );
    this.#revoke = db.prepare<[number, string, string], KeyRow>(
      `UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ? AND account_id = ? RETURNING ` +
        `${KEY_COLUMNS}`,
    );
    this.#byAccountAndId = db.prepare<[string, string], KeyRow>(
      `SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ? AND account_id = ?`,
    );
    this.#touch = db.prepare<[number, string], unknown>(
      'UPDATE api_keys SET last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?',
    );
  }

  async createWithinLimit(input: NewApiKey, maxActive: number): Promise<ApiKeyRecord | 'limit_reached'> {
    // IMMEDIATE takes the write lock before counting, so two processes cannot both see room for one more key.
    const create = this.#db.transaction((): ApiKeyRecord | 'limit_reached' => {
      if (this.#countActive.get(input.accountId)!.n >= maxActive) return 'limit_reached';
      const scopes = scopesToStore(input.scopes);
      const row = this.#insert.get(
        newId('key'),
        input.accountId,
        input.name,
        input.hash,
        input.hint,
        input.createdAt.getTime(),
        scopes === null ? null : JSON.stringify(scopes),
        input.expiresAt?.getTime() ?? null,
        JSON.stringify(input.createdBy),
      )!;
      return toRecord(row);
    });
    return create.immediate();
  }

  async findActiveCredential(hash: string): Promise<Credential | undefined> {
    const row = this.#credential.get(hash);
    return (
      row && {
        keyId: row.key_id,
        accountId: row.account_id,
        plan: row.plan as PlanId,
        hint: row.hint,
        scopes: scopesOf(row.scopes),
        expiresAt: row.expires_at === null ? undefined : new Date(row.expires_at),
      }
    );
  }

  async list(accountId: string): Promise<ApiKeyRecord[]> {
    return this.#list.all(accountId).map(toRecord);
  }

  async revoke(accountId: string, keyId: string, at: Date): Promise<ApiKeyRecord | undefined> {
    const row = this.#revoke.get(at.getTime(), keyId, accountId) ?? this.#byAccountAndId.get(keyId, accountId);
    return row && toRecord(row);
  }

  async recordLastUsed(entries: ReadonlyArray<{ keyId: string; at: Date }>): Promise<void> {
    this.#db.transaction(() => {
      for (const { keyId, at } of entries) this.#touch.run(at.getTime(), keyId);
    })();
  }
}
