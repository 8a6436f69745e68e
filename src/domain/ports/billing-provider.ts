// Port: the payment provider (Stripe) — Checkout, its customer portal, subscriptions read back, and signed webhook
// events.
import type { SubscriptionSnapshot } from '../billing.js';

/** A verified webhook event, reduced to what billing acts on. */
export type BillingEvent =
  /**
   * A Checkout Session was paid for (or its subscription started): links the customer and subscription to the account.
   */
  | { id: string; kind: 'checkout_completed'; accountId: string | undefined; subscriptionId: string | undefined }
  /** A subscription was created, changed or ended: its current state is read back from the provider. */
  | { id: string; kind: 'subscription_changed'; subscriptionId: string }
  /** Any other event type: acknowledged and ignored. */
  | { id: string; kind: 'other'; type: string };

export interface CheckoutRequest {
  accountId: string;
  email: string;
  /**
   * The account's customer when it has one (a second purchase reuses it); otherwise the provider makes one from
   * `email`.
   */
  customerId: string | undefined;
  priceId: string;
  successUrl: string;
  cancelUrl: string;
}

/**
 * Contract:
 * - `verifyEvent` checks the signature over the exact bytes received and the timestamp's age against `receivedAt`;
 *   a wrong, stale or missing signature is ApiError `invalid_webhook_signature` (400), a body that is not an event
 *   ApiError `invalid_request`.
 * - The provider calls answer ApiError `unavailable` when the provider cannot be reached or refuses the call.
 * - `subscription` answers undefined for an id the provider does not know.
 * - `subscriptionsOf` lists every subscription bought for the account (its metadata) or held by the customer, any
 *   status.
 */
export interface BillingProvider {
  /**
   * Origins of the pages Checkout and the customer portal send the browser to: the portal's CSP lets its forms be
   * redirected there.
   */
  readonly pageOrigins: readonly string[];
  verifyEvent(payload: Buffer, signature: string | undefined, receivedAt: Date): BillingEvent;
  /** A Checkout Session in subscription mode: the URL to send the browser to. */
  createCheckout(request: CheckoutRequest): Promise<{ url: string }>;
  /** A customer-portal session (payment method, invoices, cancel, switch plan): the URL to send the browser to. */
  createPortalSession(customerId: string, returnUrl: string): Promise<{ url: string }>;
  subscription(id: string): Promise<SubscriptionSnapshot | undefined>;
  subscriptionsOf(accountId: string, customerId: string | undefined): Promise<SubscriptionSnapshot[]>;
}
