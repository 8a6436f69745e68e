// Port: the system of record for accounts.
import type { BillingState } from '../billing.js';
import type { PlanId } from '../plan-catalogue.js';
import type { ScanPrivacy } from '../scan-privacy.js';

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
  /** The payment provider's side (Stripe), once the account has bought a plan; absent before. */
  billing?: BillingState;
  /** How much of a scan of its codes is kept (see scan-privacy.ts); `country` until the account changes it. */
  scanPrivacy: ScanPrivacy;
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
 * - billing: `setBilling` replaces the account's billing state as a whole (it never changes the plan);
 *   `findByBillingCustomer` finds the account a provider customer was linked to. `noteBillingEvent` is true the
 *   first time an event id is noted and false ever after (for at least 30 days): webhooks are applied once.
 */
export interface AccountStore {
  create(input: NewAccount): Promise<Account>;
  findById(id: string): Promise<Account | undefined>;
  findByIdentity(identity: AccountIdentity): Promise<Account | undefined>;
  findByEmail(email: string): Promise<Account[]>;
  /** Returns the updated account, or undefined when there is no such account. */
  setPlan(id: string, plan: PlanId): Promise<Account | undefined>;
  /** Returns the updated account, or undefined when there is no such account. */
  setScanPrivacy(id: string, scanPrivacy: ScanPrivacy): Promise<Account | undefined>;
  /**
   * How many accounts are on each plan that has any (start-up checks every one is in the catalogue; `qrm plans` shows
   * them).
   */
  countByPlan(): Promise<Map<PlanId, number>>;
  /** Returns the updated account, or undefined when there is no such account. */
  setBilling(id: string, billing: BillingState): Promise<Account | undefined>;
  findByBillingCustomer(customerId: string): Promise<Account | undefined>;
  /** Whether the provider's event was applied already (noted by noteBillingEvent). */
  hasBillingEvent(eventId: string): Promise<boolean>;
  /** Notes an applied event: true the first time, false when it was noted before. Forgets events older than 30 days. */
  noteBillingEvent(eventId: string, at: Date): Promise<boolean>;
}
