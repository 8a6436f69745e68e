// Port: the system of record for accounts.
import type { PlanId } from '../plan-catalogue.js';

/** Where an account's identity comes from: an OIDC provider, or the operator (`local`). */
export type IdentityProvider = 'google' | 'microsoft' | 'local';

export interface AccountIdentity {
  provider: IdentityProvider;
  /** Provider-stable subject: Google `sub`, Microsoft `tid:oid`, local: the e-mail address. */
  subject: string;
}

export interface Account {
  id: string;
  email: string;
  plan: PlanId;
  identity: AccountIdentity;
  createdAt: Date;
}

export interface NewAccount {
  email: string;
  plan: PlanId;
  identity: AccountIdentity;
  createdAt: Date;
}

/**
 * Contract (test/contracts/account-store.contract.ts):
 * - `create` is idempotent per identity: creating an identity that exists returns the existing
 *   account unchanged (two concurrent first sign-ins never make two accounts).
 * - e-mail is not unique: two identities may share an address; `findByEmail` lists them all,
 *   oldest first.
 */
export interface AccountStore {
  create(input: NewAccount): Promise<Account>;
  findById(id: string): Promise<Account | undefined>;
  findByIdentity(identity: AccountIdentity): Promise<Account | undefined>;
  findByEmail(email: string): Promise<Account[]>;
  /** Returns the updated account, or undefined when there is no such account. */
  setPlan(id: string, plan: PlanId): Promise<Account | undefined>;
  /** How many accounts are on each plan that has any (start-up checks every one is in the catalogue; `qrm plans` shows them). */
  countByPlan(): Promise<Map<PlanId, number>>;
}
