// Port: signing keys for signed image URLs, in the system of record (secrets sealed, never plain).
import type { PlanId } from '../plan-catalogue.js';

export interface SigningKeyRecord {
  id: string;
  accountId: string;
  name: string;
  createdAt: Date;
  revokedAt: Date | undefined;
}

/** An active signing key resolved to what verifying a URL needs. */
export interface SigningCredential {
  keyId: string;
  accountId: string;
  plan: PlanId;
  /** The secret sealed with SecretSeal (the key id is its associated data). */
  sealedSecret: string;
}

export interface NewSigningKey {
  /** Chosen by the caller: the sealed secret is bound to it. */
  id: string;
  accountId: string;
  name: string;
  sealedSecret: string;
  createdAt: Date;
}

/**
 * Contract (test/contracts/signing-key-store.contract.ts):
 * - `createWithinLimit` is atomic: under any concurrency an account never holds more than `maxActive`
 *   unrevoked signing keys; past the limit it returns `limit_reached` and stores nothing.
 * - `findActive` returns nothing for a revoked key from the moment `revoke` resolves.
 * - every read and write that names a key also names its account, except `findActive` (a URL names only the key).
 */
export interface SigningKeyStore {
  createWithinLimit(input: NewSigningKey, maxActive: number): Promise<SigningKeyRecord | 'limit_reached'>;
  findActive(keyId: string): Promise<SigningCredential | undefined>;
  list(accountId: string): Promise<SigningKeyRecord[]>;
  /** Revokes the account's key; undefined when the account has no such key. Revoking twice keeps the first time. */
  revoke(accountId: string, keyId: string, at: Date): Promise<SigningKeyRecord | undefined>;
}
