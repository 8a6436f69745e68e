// Billing rules: an account's subscription state, and which plan a subscription gives (pure; the payment provider is a
// port).
import type { PlanCatalogue, PlanId } from './plan-catalogue.js';

/** Stripe's subscription statuses, as the provider reports them. */
export const SUBSCRIPTION_STATUSES = [
  'active',
  'trialing',
  'past_due',
  'incomplete',
  'incomplete_expired',
  'unpaid',
  'paused',
  'canceled',
] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export function isSubscriptionStatus(value: string): value is SubscriptionStatus {
  return (SUBSCRIPTION_STATUSES as readonly string[]).includes(value);
}

/** The account's side of the payment provider: who pays (customer), for what (subscription), and how that stands. */
export interface BillingState {
  customerId: string;
  subscriptionId: string | undefined;
  status: SubscriptionStatus | undefined;
  /** When the period paid for ends (renewal, or the end of access once cancelled at period end). */
  currentPeriodEnd: Date | undefined;
  /** When this state was last read from the provider. */
  updatedAt: Date;
}

/** A subscription as the provider holds it now: what the plan and the billing state are derived from. */
export interface SubscriptionSnapshot {
  id: string;
  customerId: string;
  status: SubscriptionStatus;
  /** The price of the subscription's first item. */
  priceId: string | undefined;
  currentPeriodEnd: Date | undefined;
  /** The account it was bought for (its metadata, set at checkout), when it carries one. */
  accountId: string | undefined;
  createdAt: Date;
}

/** Statuses under which the subscription still stands: the account keeps (or gets) its plan. */
export function isLive(status: SubscriptionStatus | undefined): boolean {
  return status === 'active' || status === 'trialing' || status === 'past_due';
}

export type PlanDecision = { kind: 'plan'; plan: PlanId } | { kind: 'keep'; reason: string };

/**
 * Which plan a subscription gives: the plan priced at its first item's price while active or trialing; past due
 * and a first payment still pending (incomplete) keep the plan the account has; ended, unpaid or paused ones go
 * back to the default plan.
 */
export function planForSubscription(plans: PlanCatalogue, subscription: SubscriptionSnapshot): PlanDecision {
  switch (subscription.status) {
    case 'active':
    case 'trialing': {
      const plan = subscription.priceId === undefined ? undefined : plans.byStripePriceId(subscription.priceId);
      if (!plan) return { kind: 'keep', reason: `no plan has stripePriceId ${subscription.priceId ?? '(none)'}` };
      return { kind: 'plan', plan: plan.id };
    }
    case 'past_due':
      return { kind: 'keep', reason: 'payment past due: the plan stays while Stripe retries' };
    case 'incomplete':
      return { kind: 'keep', reason: 'the first payment is not complete yet' };
    default:
      return { kind: 'plan', plan: plans.defaultPlan.id };
  }
}

/**
 * Whether a subscription's state may replace the account's: an ended subscription other than the account's live
 * one (an older purchase, a second checkout that lapsed) says nothing about the account's plan.
 */
export function supersedes(current: BillingState | undefined, subscription: SubscriptionSnapshot): boolean {
  if (!current?.subscriptionId || current.subscriptionId === subscription.id) return true;
  return isLive(subscription.status) || !isLive(current.status);
}

/** Of several subscriptions of one account, the one that decides: a live one before an ended one, then the newest. */
export function decidingSubscription(subscriptions: readonly SubscriptionSnapshot[]): SubscriptionSnapshot | undefined {
  const rank = (s: SubscriptionSnapshot) => (isLive(s.status) ? 1 : 0);
  return [...subscriptions].sort((a, b) => rank(b) - rank(a) || b.createdAt.getTime() - a.createdAt.getTime())[0];
}

/** The billing state a subscription gives the account. */
export function billingStateOf(subscription: SubscriptionSnapshot, now: Date): BillingState {
  return {
    customerId: subscription.customerId,
    subscriptionId: subscription.id,
    status: subscription.status,
    currentPeriodEnd: subscription.currentPeriodEnd,
    updatedAt: now,
  };
}
