// SigningKeyStore on SQLite: sealed secrets, the active-key limit counted and written in one immediate transaction.
import type { PlanId } from '../../domain/plan-catalogue.js';
import type {
  NewSigningKey,
  SigningCredential,
  SigningKeyRecord,
  SigningKeyStore,
} from '../../domain/ports/signing-key-store.js';
import type { OwnFields } from '../record-fields.js';
import type { SqliteDatabase } from './database.js';

/** A signing_keys row read under the record's field names (never its sealed secret); times in epoch milliseconds. */
interface SigningKeyRow {
  id: string;
  accountId: string;
  name: string;
  createdAt: number;
  revokedAt: number | null;
}

const COLUMNS = 'id, account_id AS accountId, name, created_at AS createdAt, revoked_at AS revokedAt';

function toRecord({ createdAt, revokedAt, ...fields }: SigningKeyRow): SigningKeyRecord {
  return {
    ...(fields satisfies OwnFields<SigningKeyRecord, typeof fields>),
    createdAt: new Date(createdAt),
    revokedAt: revokedAt === null ? undefined : new Date(revokedAt),
  };
}

export class SqliteSigningKeyStore implements SigningKeyStore {
  readonly #db: SqliteDatabase;
  readonly #countActive;
  readonly #insert;
  readonly #active;
  readonly #list;
  readonly #revoke;
  readonly #byAccountAndId;

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#countActive = db.prepare<[string], { n: number }>(
      'SELECT count(*) AS n FROM signing_keys WHERE account_id = ? AND revoked_at IS NULL',
    );
    this.#insert = db.prepare<unknown[], SigningKeyRow>(
      `INSERT INTO signing_keys (id, account_id, name, sealed_secret, created_at) VALUES (?, ?, ?, ?, ?) ` +
        `RETURNING ${COLUMNS}`,
    );
    this.#active = db.prepare<[string], { account_id: string; plan: string; sealed_secret: string }>(
      `SELECT k.account_id, a.plan, k.sealed_secret FROM signing_keys k JOIN accounts a ON a.id = k.account_id ` +
        `WHERE k.id = ? AND k.revoked_at IS NULL`,
    );
    this.#list = db.prepare<[string], SigningKeyRow>(
      `SELECT ${COLUMNS} FROM signing_keys WHERE account_id = ? ORDER BY created_at DESC, id`,
    );
    this.#revoke = db.prepare<[number, string, string], SigningKeyRow>(
      `UPDATE signing_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ? AND account_id = ? RETURNING ` +
        `${COLUMNS}`,
    );
    this.#byAccountAndId = db.prepare<[string, string], SigningKeyRow>(
      `SELECT ${COLUMNS} FROM signing_keys WHERE id = ? AND account_id = ?`,
    );
  }

  async createWithinLimit(input: NewSigningKey, maxActive: number): Promise<SigningKeyRecord | 'limit_reached'> {
    // IMMEDIATE takes the write lock before counting, so two processes cannot both see room for one more key.
    const create = this.#db.transaction((): SigningKeyRecord | 'limit_reached' => {
      if (this.#countActive.get(input.accountId)!.n >= maxActive) return 'limit_reached';
      return toRecord(
        this.#insert.get(input.id, input.accountId, input.name, input.sealedSecret, input.createdAt.getTime())!,
      );
    });
    return create.immediate();
  }

  async findActive(keyId: string): Promise<SigningCredential | undefined> {
    const row = this.#active.get(keyId);
    return row && { keyId, accountId: row.account_id, plan: row.plan as PlanId, sealedSecret: row.sealed_secret };
  }

  async list(accountId: string): Promise<SigningKeyRecord[]> {
    return this.#list.all(accountId).map(toRecord);
  }

  async revoke(accountId: string, keyId: string, at: Date): Promise<SigningKeyRecord | undefined> {
    const row = this.#revoke.get(at.getTime(), keyId, accountId) ?? this.#byAccountAndId.get(keyId, accountId);
    return row && toRecord(row);
  }
}
