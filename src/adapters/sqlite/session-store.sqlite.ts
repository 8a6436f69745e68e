// SessionStore on SQLite: one row per session; expired rows are swept whenever a session is created.
import type { OidcProvider, Session, SessionStore } from '../../domain/ports/session-store.js';
import type { SqliteDatabase } from './database.js';

interface SessionRow {
  id: string;
  account_id: string | null;
  active_account_id: string | null;
  csrf_secret: string;
  created_at: number;
  expires_at: number;
  pending_provider: string | null;
  pending_state: string | null;
  pending_nonce: string | null;
}

function toSession(row: SessionRow): Session {
  return {
    id: row.id,
    accountId: row.account_id ?? undefined,
    activeAccountId: row.active_account_id ?? undefined,
    csrfSecret: row.csrf_secret,
    createdAt: new Date(row.created_at),
    expiresAt: new Date(row.expires_at),
    pendingSignIn:
      row.pending_provider !== null && row.pending_state !== null && row.pending_nonce !== null
        ? { provider: row.pending_provider as OidcProvider, state: row.pending_state, nonce: row.pending_nonce }
        : undefined,
  };
}

export class SqliteSessionStore implements SessionStore {
  readonly #insert;
  readonly #sweep;
  readonly #find;
  readonly #take;
  readonly #delete;
  readonly #deleteForAccount;

  constructor(db: SqliteDatabase) {
    this.#insert = db.prepare(
      `INSERT INTO sessions (id, account_id, csrf_secret, created_at, expires_at, pending_provider, pending_state,
         pending_nonce, active_account_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    // Sessions are created far less often than read, so sweeping here keeps the table bounded cheaply.
    this.#sweep = db.prepare<[number]>('DELETE FROM sessions WHERE expires_at <= ?');
    this.#find = db.prepare<[string, number], SessionRow>('SELECT * FROM sessions WHERE id = ? AND expires_at > ?');
    // One statement: of two concurrent takes, only one sees the row.
    this.#take = db.prepare<[string], SessionRow>('DELETE FROM sessions WHERE id = ? RETURNING *');
    this.#delete = db.prepare<[string]>('DELETE FROM sessions WHERE id = ?');
    this.#deleteForAccount = db.prepare<[string]>('DELETE FROM sessions WHERE account_id = ?');
  }

  async create(session: Session): Promise<void> {
    const pending = session.pendingSignIn;
    this.#sweep.run(session.createdAt.getTime());
    this.#insert.run(
      session.id,
      session.accountId ?? null,
      session.csrfSecret,
      session.createdAt.getTime(),
      session.expiresAt.getTime(),
      pending?.provider ?? null,
      pending?.state ?? null,
      pending?.nonce ?? null,
      session.activeAccountId ?? null,
    );
  }

  async find(id: string, now: Date): Promise<Session | undefined> {
    const row = this.#find.get(id, now.getTime());
    return row && toSession(row);
  }

  async take(id: string, now: Date): Promise<Session | undefined> {
    const row = this.#take.get(id);
    // An expired session is removed all the same, and reported as absent.
    return row && row.expires_at > now.getTime() ? toSession(row) : undefined;
  }

  async delete(id: string): Promise<void> {
    this.#delete.run(id);
  }

  async deleteForAccount(accountId: string): Promise<number> {
    return this.#deleteForAccount.run(accountId).changes;
  }
}
