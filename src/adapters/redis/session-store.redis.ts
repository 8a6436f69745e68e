// SessionStore on Redis: one key per session expiring at the session's end, and a per-account index for "sign out
// everywhere".
import type { RedisClient } from './connection.js';
import { readLua } from './lua-script.js';
import type { OidcProvider, Session, SessionStore } from '../../domain/ports/session-store.js';

export interface RedisSessionStoreOptions {
  /** Prefix of every key this store writes (tests give each case its own). */
  keyPrefix?: string;
}

interface StoredSession {
  accountId: string | null;
  /** Absent in sessions stored before members existed: their own account. */
  activeAccountId?: string | null;
  csrfSecret: string;
  createdAt: number;
  expiresAt: number;
  pending: { provider: OidcProvider; state: string; nonce: string } | null;
}

// The scripts (src/adapters/redis/lua/): each file opens with its KEYS, ARGV and answer.
const INDEX_ADD = readLua('session-index-add');

export class RedisSessionStore implements SessionStore {
  readonly #redis: RedisClient;
  readonly #prefix: string;

  /** The client stays its creator's to close. */
  constructor(redis: RedisClient, options: RedisSessionStoreOptions = {}) {
    this.#redis = redis;
    this.#prefix = options.keyPrefix ?? 'qrm:';
  }

  #sessionKey(id: string): string {
    return `${this.#prefix}session:${id}`;
  }

  #indexKey(accountId: string): string {
    return `${this.#prefix}account-sessions:${accountId}`;
  }

  async create(session: Session): Promise<void> {
    const stored: StoredSession = {
      accountId: session.accountId ?? null,
      activeAccountId: session.activeAccountId ?? null,
      csrfSecret: session.csrfSecret,
      createdAt: session.createdAt.getTime(),
      expiresAt: session.expiresAt.getTime(),
      pending: session.pendingSignIn ?? null,
    };
    // PXAT: Redis drops the key exactly when the session ends; no sweeping needed.
    await this.#redis.set(this.#sessionKey(session.id), JSON.stringify(stored), 'PXAT', stored.expiresAt);
    if (session.accountId !== undefined) {
      await this.#redis.eval(INDEX_ADD, 1, this.#indexKey(session.accountId), stored.expiresAt, session.id, Date.now());
    }
  }

  async find(id: string, now: Date): Promise<Session | undefined> {
    return this.#live(id, await this.#redis.get(this.#sessionKey(id)), now);
  }

  async take(id: string, now: Date): Promise<Session | undefined> {
    // GETDEL is atomic: of concurrent takes only one receives the value.
    const raw = await this.#redis.getdel(this.#sessionKey(id));
    await this.#unindex(id, raw);
    return this.#live(id, raw, now);
  }

  async delete(id: string): Promise<void> {
    await this.#unindex(id, await this.#redis.getdel(this.#sessionKey(id)));
  }

  async deleteForAccount(accountId: string): Promise<number> {
    const index = this.#indexKey(accountId);
    const ids = await this.#redis.zrange(index, 0, -1);
    if (ids.length === 0) return 0;
    // Sessions hash to their own slots: one DEL each, sent together (one round trip per master on a cluster).
    const deleted = await Promise.all(ids.map((id) => this.#redis.del(this.#sessionKey(id)).catch(() => 0)));
    await this.#redis.del(index);
    return deleted.filter((n) => n === 1).length;
  }

  async #unindex(id: string, raw: string | null): Promise<void> {
    const accountId = raw === null ? null : (JSON.parse(raw) as StoredSession).accountId;
    if (accountId !== null) await this.#redis.zrem(this.#indexKey(accountId), id);
  }

  #live(id: string, raw: string | null, now: Date): Session | undefined {
    if (raw === null) return undefined;
    const stored = JSON.parse(raw) as StoredSession;
    // Redis expires by its own clock; the caller's clock decides too, so both agree on "expired".
    if (stored.expiresAt <= now.getTime()) return undefined;
    return {
      id,
      accountId: stored.accountId ?? undefined,
      activeAccountId: stored.activeAccountId ?? undefined,
      csrfSecret: stored.csrfSecret,
      createdAt: new Date(stored.createdAt),
      expiresAt: new Date(stored.expiresAt),
      pendingSignIn: stored.pending ?? undefined,
    };
  }
}
