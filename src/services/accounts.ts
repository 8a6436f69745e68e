// Use cases for accounts: create (operator or sign-in), find by e-mail, change plan, usage report.
import { ApiError } from '../domain/errors.js';
import { periodOf } from '../domain/period.js';
import type { PlanCatalogue, PlanId } from '../domain/plan-catalogue.js';
import type { Account, AccountIdentity, AccountStore } from '../domain/ports/account-store.js';
import type { UsageMeter } from '../domain/ports/usage-meter.js';
import { quotaState, type QuotaState } from '../domain/quota.js';

export interface AccountDeps {
  accounts: AccountStore;
  clock: () => Date;
}

// One @, nothing blank; the domain is checked for its dot apart (one pattern for both was quadratic).
const EMAIL = /^[^\s@]+@([^\s@]+)$/;

/** Something@domain.tld: a dot in the domain with a character either side of it. */
function looksLikeEmail(address: string): boolean {
  const domain = EMAIL.exec(address)?.[1];
  return domain !== undefined && domain.slice(1, -1).includes('.');
}

export function assertEmail(email: string): string {
  const normalised = email.trim().toLowerCase();
  if (normalised.length > 254 || !looksLikeEmail(normalised)) {
    throw new ApiError('invalid_request', 'not a valid e-mail address', {
      fields: [{ field: 'email', detail: 'must be an e-mail address' }],
    });
  }
  return normalised;
}

export function unknownPlan(plans: PlanCatalogue, plan: string): ApiError {
  const known = plans.plans.map((p) => p.id).join(', ');
  return new ApiError('invalid_request', `no plan "${plan.slice(0, 32)}" (plans: ${known})`, {
    fields: [{ field: 'plan', detail: `must be one of ${known}` }],
  });
}

/** An operator-made account: its identity is the e-mail address under the `local` provider. */
export async function createLocalAccount(deps: AccountDeps, email: string, plan: PlanId): Promise<Account> {
  const address = assertEmail(email);
  return deps.accounts.create({
    email: address,
    plan,
    identity: { provider: 'local', subject: address },
    createdAt: deps.clock(),
  });
}

/**
 * First sign-in creates an account on the catalogue's default plan; later sign-ins find it. Keyed by identity, never by
 * e-mail.
 */
export async function accountForIdentity(
  deps: AccountDeps & { plans: PlanCatalogue },
  identity: AccountIdentity,
  email: string,
): Promise<Account> {
  const existing = await deps.accounts.findByIdentity(identity);
  if (existing) return existing;
  return deps.accounts.create({
    email: email.trim().toLowerCase(),
    plan: deps.plans.defaultPlan.id,
    identity,
    createdAt: deps.clock(),
  });
}

/** The one account with this e-mail; ambiguity is an error the operator resolves by account id. */
export async function findAccountByEmail(deps: AccountDeps, email: string): Promise<Account> {
  const found = await deps.accounts.findByEmail(assertEmail(email));
  if (found.length === 0) throw new ApiError('not_found', `no account for ${email}`);
  if (found.length > 1)
    throw new ApiError(
      'invalid_request',
      `${found.length} accounts use ${email} (one per sign-in identity); name the account by id`,
    );
  return found[0]!;
}

/** Only to a plan the catalogue defines: an account on an unknown plan would stop the next start-up. */
export async function changePlan(
  deps: AccountDeps & { plans: PlanCatalogue },
  accountId: string,
  plan: PlanId,
): Promise<Account> {
  if (!deps.plans.has(plan)) throw unknownPlan(deps.plans, plan);
  const updated = await deps.accounts.setPlan(accountId, plan);
  if (!updated) throw new ApiError('not_found', 'no such account');
  return updated;
}

export interface UsageReport {
  period: string;
  requests: number;
  qrs: number;
  quota: QuotaState;
}

export async function usageReport(
  deps: { meter: UsageMeter; clock: () => Date; plans: PlanCatalogue },
  account: Account,
): Promise<UsageReport> {
  const now = deps.clock();
  const period = periodOf(now);
  const usage = await deps.meter.usage(account.id, period);
  return { period, ...usage, quota: quotaState(deps.plans.get(account.plan), usage, now) };
}
