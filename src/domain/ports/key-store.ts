// Port: the system of record for API keys (only hashes are ever stored).
import type { Actor } from '../actor.js';
import type { KeyScope } from '../key-scope.js';
import type { PlanId } from '../plan-catalogue.js';

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  name: string;
  /** Display hint: prefix + last four characters. Never enough to use the key. */
  hint: string;
  createdAt: Date;
  lastUsedAt: Date | undefined;
  revokedAt: Date | undefined;
  /** What the key may do; keys made before scopes existed hold every scope. */
  scopes: KeyScope[];
  /** Past this instant the key is refused (401 expired_api_key); undefined: it does not expire. */
  expiresAt: Date | undefined;
  /** Who made it; undefined for keys made before this was recorded. */
  createdBy: Actor | undefined;
}

/** An active key resolved to what the API needs on every request. */
export interface Credential {
  keyId: string;
  accountId: string;
  plan: PlanId;
  scopes: KeyScope[];
  /** Checked on every request against the clock, so a cached credential expires on time too. */
  expiresAt: Date | undefined;
  /** The key's display hint, what an audit entry names it by. */
  hint: string;
}

export interface NewApiKey {
  accountId: string;
  name: string;
  hash: string;
  hint: string;
  createdAt: Date;
  scopes: KeyScope[];
  expiresAt: Date | undefined;
  createdBy: Actor;
}

/**
 * Contract (test/contracts/key-store.contract.ts):
 * - `createWithinLimit` is atomic: under any concurrency an account never holds more than
 *   `maxActive` unrevoked keys; past the limit it returns `limit_reached` and stores nothing.
 * - `findActiveCredential` returns nothing for a revoked key from the moment `revoke` resolves; it returns an
 *   expired key (with its `expiresAt`): the caller tells expired from unknown.
 * - keys stored before scopes existed read back with every scope (`KEY_SCOPES`).
 * - every read and write that names a key also names its account: one tenant can never list,
 *   see or revoke another's keys.
 */
export interface KeyStore {
  createWithinLimit(input: NewApiKey, maxActive: number): Promise<ApiKeyRecord | 'limit_reached'>;
  findActiveCredential(hash: string): Promise<Credential | undefined>;
  list(accountId: string): Promise<ApiKeyRecord[]>;
  /** Revokes the account's key; undefined when the account has no such key. Revoking twice keeps the first time. */
  revoke(accountId: string, keyId: string, at: Date): Promise<ApiKeyRecord | undefined>;
  /** Moves last-used times forward (never back). */
  recordLastUsed(entries: ReadonlyArray<{ keyId: string; at: Date }>): Promise<void>;
}
