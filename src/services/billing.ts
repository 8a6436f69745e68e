// Use cases for self-serve plans: start a purchase, open the customer portal, apply the provider's events, repair from
// the provider.
import {
  billingStateOf,
  decidingSubscription,
  isLive,
  planForSubscription,
  supersedes,
  type BillingState,
  type SubscriptionSnapshot,
} from '../domain/billing.js';
import type { AuditContext } from '../domain/audit.js';
import { ApiError, invalidField } from '../domain/errors.js';
import { isSelfServe, type PlanCatalogue } from '../domain/plan-catalogue.js';
import type { Account, AccountStore } from '../domain/ports/account-store.js';
import type { AuditLog } from '../domain/ports/audit-log.js';
import type { BillingEvent, BillingProvider } from '../domain/ports/billing-provider.js';
import { appendAudit } from './audit-log.js';

export interface BillingDeps {
  accounts: AccountStore;
  billing: BillingProvider;
  plans: PlanCatalogue;
  clock: () => Date;
}

/** What applying a subscription needs: a plan it changes is appended to the audit log. */
export interface BillingApplyDeps extends BillingDeps {
  auditLog: AuditLog;
}

/** Where the provider sends the browser back: the portal's Plans page, saying how the purchase went. */
export interface ReturnUrls {
  success: string;
  cancel: string;
}

/** A Checkout Session for a plan the account can buy: the URL the browser goes to. */
export async function startCheckout(
  deps: BillingDeps,
  account: Account,
  planId: string,
  urls: ReturnUrls,
): Promise<string> {
  const plan = deps.plans.has(planId) ? deps.plans.get(planId) : undefined;
  if (!plan) throw invalidField('plan', `no plan "${planId.slice(0, 32)}"`);
  if (!isSelfServe(plan))
    throw invalidField('plan', `${plan.name} cannot be bought here (it has no Stripe price); ask the operator`);
  if (isLive(account.billing?.status)) {
    throw new ApiError(
      'already_subscribed',
      'you already have a subscription: change or cancel it in "Manage billing" instead of buying a second one',
    );
  }
  const { url } = await deps.billing.createCheckout({
    accountId: account.id,
    email: account.email,
    customerId: account.billing?.customerId,
    priceId: plan.stripePriceId!,
    successUrl: urls.success,
    cancelUrl: urls.cancel,
  });
  return url;
}

/** The provider's customer portal for the account's customer. */
export async function openCustomerPortal(deps: BillingDeps, account: Account, returnUrl: string): Promise<string> {
  const customerId = account.billing?.customerId;
  if (!customerId) throw new ApiError('invalid_request', 'there is no billing account yet: buy a plan first');
  return (await deps.billing.createPortalSession(customerId, returnUrl)).url;
}

export type BillingOutcome = 'applied' | 'duplicate' | 'ignored';

export interface AppliedSubscription {
  outcome: 'applied' | 'ignored';
  account: Account;
  /** Why nothing changed, when nothing did. */
  reason?: string;
}

/**
 * Brings the account in line with a subscription as the provider holds it now. The state compared is the
 * subscription's, never the order events came in: an older subscription ending does not end the current one,
 * and applying the same state twice changes nothing.
 */
export async function applySubscription(
  deps: BillingApplyDeps,
  account: Account,
  subscription: SubscriptionSnapshot,
  context: AuditContext,
): Promise<AppliedSubscription> {
  if (!supersedes(account.billing, subscription)) {
    return {
      outcome: 'ignored',
      account,
      reason: `subscription ${subscription.id} (${subscription.status}) is not the account's live one`,
    };
  }
  let current = (await deps.accounts.setBilling(account.id, billingStateOf(subscription, deps.clock()))) ?? account;
  const decision = planForSubscription(deps.plans, subscription);
  if (decision.kind === 'keep') return { outcome: 'applied', account: current, reason: decision.reason };
  // Through the store's plan-change push: every instance drops the credentials that carry the old plan.
  if (decision.plan !== current.plan) {
    const from = current.plan;
    current = (await deps.accounts.setPlan(account.id, decision.plan)) ?? current;
    await appendAudit(deps, context, {
      accountId: account.id,
      plan: current.plan,
      action: 'plan.changed',
      target: { type: 'account', id: account.id },
      changes: { from, to: current.plan, subscription: subscription.id, status: subscription.status },
    });
  }
  return { outcome: 'applied', account: current };
}

/** The account a subscription belongs to: its checkout metadata, else the customer linked to an account. */
async function accountOf(deps: BillingDeps, subscription: SubscriptionSnapshot): Promise<Account | undefined> {
  const byMetadata =
    subscription.accountId === undefined ? undefined : await deps.accounts.findById(subscription.accountId);
  return byMetadata ?? (await deps.accounts.findByBillingCustomer(subscription.customerId));
}

/**
 * A verified webhook event, applied once: a duplicate (same event id) changes nothing; a subscription event is
 * applied from the subscription as the provider holds it now, so events that arrive late or out of order cannot
 * undo a newer state. The event is noted only once applied: a failure answers an error and Stripe delivers it again.
 */
export async function handleBillingEvent(
  deps: BillingApplyDeps,
  event: BillingEvent,
  context: AuditContext,
  log?: BillingLog,
): Promise<BillingOutcome> {
  if (await deps.accounts.hasBillingEvent(event.id)) return 'duplicate';
  const outcome = await applyEvent(deps, event, context, log);
  await deps.accounts.noteBillingEvent(event.id, deps.clock());
  return outcome;
}

export interface BillingLog {
  warn(obj: object, msg: string): void;
}

/** Whether the subscription itself names the account: its checkout metadata, or a customer already linked to it. */
async function subscriptionNames(
  deps: BillingDeps,
  account: Account,
  subscription: SubscriptionSnapshot,
): Promise<boolean> {
  if (subscription.accountId === account.id || account.billing?.customerId === subscription.customerId) return true;
  return (await deps.accounts.findByBillingCustomer(subscription.customerId))?.id === account.id;
}

async function applyEvent(
  deps: BillingApplyDeps,
  event: BillingEvent,
  context: AuditContext,
  log: BillingLog | undefined,
): Promise<'applied' | 'ignored'> {
  if (event.kind === 'other' || event.subscriptionId === undefined) return 'ignored';
  const subscription = await deps.billing.subscription(event.subscriptionId);
  if (!subscription) return 'ignored';
  if (event.kind !== 'checkout_completed' || event.accountId === undefined) {
    const account = await accountOf(deps, subscription);
    return account ? (await applySubscription(deps, account, subscription, context)).outcome : 'ignored';
  }
  const account = await deps.accounts.findById(event.accountId);
  if (!account) return 'ignored';
  // A session's client_reference_id is whatever the link that started it carried: it counts only when the subscription
  // agrees.
  if (!(await subscriptionNames(deps, account, subscription))) {
    log?.warn(
      {
        stripeEvent: event.id,
        accountId: account.id,
        subscriptionId: subscription.id,
        subscriptionAccountId: subscription.accountId ?? null,
      },
      "checkout session ignored: its subscription's metadata and customer do not name the account its " +
        'client_reference_id names',
    );
    return 'ignored';
  }
  return (await applySubscription(deps, account, subscription, context)).outcome;
}

export interface SyncResult {
  before: Account;
  after: Account;
  subscription: SubscriptionSnapshot | undefined;
  reason?: string;
}

/**
 * Re-reads the account's subscriptions from the provider and applies the one that decides: the repair for a lost
 * webhook.
 */
export async function syncBilling(
  deps: BillingApplyDeps,
  account: Account,
  context: AuditContext,
): Promise<SyncResult> {
  const found = await deps.billing.subscriptionsOf(account.id, account.billing?.customerId);
  const stored = account.billing?.subscriptionId;
  if (stored !== undefined && !found.some((s) => s.id === stored)) {
    const again = await deps.billing.subscription(stored);
    if (again) found.push(again);
  }
  const subscription = decidingSubscription(found);
  if (!subscription)
    return {
      before: account,
      after: account,
      subscription,
      reason: 'the payment provider holds no subscription for this account',
    };
  // The deciding subscription stands for the account as a whole, whatever the store last held.
  const unlinked: Account = account.billing
    ? { ...account, billing: { ...account.billing, subscriptionId: undefined } }
    : account;
  const applied = await applySubscription(deps, unlinked, subscription, context);
  return {
    before: account,
    after: applied.account,
    subscription,
    ...(applied.reason ? { reason: applied.reason } : {}),
  };
}

/** What `qrm billing show` and the portal say of an account's billing. */
export function billingSummary(billing: BillingState | undefined): string {
  if (!billing) return 'no billing account (never bought a plan)';
  const period = billing.currentPeriodEnd ? ` until ${billing.currentPeriodEnd.toISOString()}` : '';
  const subscription = `${billing.subscriptionId ?? '(none)'} ${billing.status ?? ''}${period}`;
  return `customer ${billing.customerId}, subscription ${subscription}`.replace(/\s+/g, ' ').trim();
}
