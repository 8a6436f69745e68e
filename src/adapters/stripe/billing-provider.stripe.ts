// BillingProvider on Stripe, through the official `stripe` library (its host, port and protocol from STRIPE_API_URL).
import Stripe from 'stripe';
import type { StripeConfig } from '../../config.js';
import { isSubscriptionStatus, type SubscriptionSnapshot } from '../../domain/billing.js';
import { ApiError } from '../../domain/errors.js';
import type { BillingEvent, BillingProvider, CheckoutRequest } from '../../domain/ports/billing-provider.js';
import type { AdapterLog } from '../adapter-log.js';

/** Stripe's own default: a signed event older than five minutes is refused (replays of a captured delivery). */
const SIGNATURE_TOLERANCE_SECONDS = 300;
const SUBSCRIPTION_EVENTS = new Set([
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
]);
const ACCOUNT_ID = /^[A-Za-z0-9_-]{1,64}$/;
/**
 * Where Stripe's hosted pages live (Checkout, the customer portal); a stand-in or proxy at another STRIPE_API_URL
 * serves them itself.
 */
const STRIPE_PAGE_ORIGINS = ['https://checkout.stripe.com', 'https://billing.stripe.com'];
const UNREACHABLE = 'the payment provider could not be reached or refused the request; retry shortly';

function idOf(value: string | { id: string } | null | undefined): string | undefined {
  return typeof value === 'string' ? value : (value?.id ?? undefined);
}

function snapshotOf(subscription: Stripe.Subscription): SubscriptionSnapshot | undefined {
  const item = subscription.items.data[0];
  const customerId = idOf(subscription.customer);
  if (!isSubscriptionStatus(subscription.status) || customerId === undefined) return undefined;
  return {
    id: subscription.id,
    customerId,
    status: subscription.status,
    priceId: item?.price.id,
    // Since API version `2025-03-31.basil` the billing period is the item's, not the subscription's.
    currentPeriodEnd: item?.current_period_end === undefined ? undefined : new Date(item.current_period_end * 1000),
    accountId: subscription.metadata?.accountId || undefined,
    createdAt: new Date(subscription.created * 1000),
  };
}

export class StripeBillingProvider implements BillingProvider {
  readonly #stripe: Stripe;
  readonly #webhookSecret: string;
  readonly #log: AdapterLog;
  readonly pageOrigins: readonly string[];

  constructor(config: StripeConfig, log: AdapterLog) {
    const { protocol, host, port } = config.api;
    this.pageOrigins =
      host === 'api.stripe.com' ? STRIPE_PAGE_ORIGINS : [new URL(`${protocol}://${host}:${port}`).origin];
    this.#stripe = new Stripe(config.secretKey, {
      host: config.api.host,
      port: config.api.port,
      protocol: config.api.protocol,
      maxNetworkRetries: 2, // the library sends an idempotency key with each POST, so a retry never buys twice
      timeout: 10_000,
      appInfo: { name: 'QR Manager' },
    });
    this.#webhookSecret = config.webhookSecret;
    this.#log = log;
  }

  verifyEvent(payload: Buffer, signature: string | undefined, receivedAt: Date): BillingEvent {
    if (!signature) throw new ApiError('invalid_webhook_signature', 'the Stripe-Signature header is missing');
    let event: Stripe.Event;
    try {
      event = this.#stripe.webhooks.constructEvent(
        payload,
        signature,
        this.#webhookSecret,
        SIGNATURE_TOLERANCE_SECONDS,
        undefined,
        receivedAt.getTime(),
      );
    } catch (error) {
      if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
        throw new ApiError(
          'invalid_webhook_signature',
          "the Stripe-Signature is not this body's, under this endpoint's signing secret, within the last 5 minutes",
        );
      }
      throw new ApiError('invalid_request', 'the body is not a Stripe event');
    }
    const object: unknown = event?.data?.object;
    if (
      typeof event?.id !== 'string' ||
      typeof event.type !== 'string' ||
      typeof object !== 'object' ||
      object === null
    ) {
      throw new ApiError('invalid_request', 'the body is not a Stripe event');
    }
    if (event.type === 'checkout.session.completed') {
      const session = event.data.object;
      return {
        id: event.id,
        kind: 'checkout_completed',
        accountId: session.client_reference_id ?? undefined,
        subscriptionId: idOf(session.subscription),
      };
    }
    if (SUBSCRIPTION_EVENTS.has(event.type)) {
      const subscriptionId = idOf(event.data.object as Stripe.Subscription);
      if (subscriptionId === undefined) throw new ApiError('invalid_request', `${event.type} without a subscription`);
      return { id: event.id, kind: 'subscription_changed', subscriptionId };
    }
    return { id: event.id, kind: 'other', type: event.type };
  }

  async createCheckout(request: CheckoutRequest): Promise<{ url: string }> {
    const session = await this.#call('create a Checkout Session', () =>
      this.#stripe.checkout.sessions.create({
        mode: 'subscription',
        line_items: [{ price: request.priceId, quantity: 1 }],
        client_reference_id: request.accountId,
        subscription_data: { metadata: { accountId: request.accountId } },
        metadata: { accountId: request.accountId },
        ...(request.customerId ? { customer: request.customerId } : { customer_email: request.email }),
        success_url: request.successUrl,
        cancel_url: request.cancelUrl,
      }),
    );
    if (!session.url) throw new ApiError('unavailable', 'Stripe answered a Checkout Session without a URL');
    return { url: session.url };
  }

  async createPortalSession(customerId: string, returnUrl: string): Promise<{ url: string }> {
    const session = await this.#call('open the customer portal', () =>
      this.#stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl }),
    );
    return { url: session.url };
  }

  async subscription(id: string): Promise<SubscriptionSnapshot | undefined> {
    try {
      return snapshotOf(await this.#stripe.subscriptions.retrieve(id));
    } catch (error) {
      if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404) return undefined;
      throw this.#unavailable('read a subscription', error);
    }
  }

  async subscriptionsOf(accountId: string, customerId: string | undefined): Promise<SubscriptionSnapshot[]> {
    if (!ACCOUNT_ID.test(accountId)) throw new Error(`not an account id: ${accountId.slice(0, 80)}`);
    const found = new Map<string, Stripe.Subscription>();
    const bought = await this.#call('search subscriptions', () =>
      this.#stripe.subscriptions.search({ query: `metadata['accountId']:'${accountId}'`, limit: 100 }),
    );
    for (const subscription of bought.data) found.set(subscription.id, subscription);
    if (customerId) {
      const held = await this.#call('list subscriptions', () =>
        this.#stripe.subscriptions.list({ customer: customerId, status: 'all', limit: 100 }),
      );
      for (const subscription of held.data) found.set(subscription.id, subscription);
    }
    return [...found.values()].flatMap((subscription) => snapshotOf(subscription) ?? []);
  }

  async #call<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw this.#unavailable(what, error);
    }
  }

  /** Stripe's message goes to the operator's log (it may name a misconfigured price); the caller gets a 503. */
  #unavailable(what: string, error: unknown): ApiError {
    const details =
      error instanceof Stripe.errors.StripeError
        ? { type: error.type, code: error.code, status: error.statusCode, stripeMessage: error.message }
        : { error: String(error) };
    this.#log.error(details, `stripe: could not ${what}`);
    return new ApiError('unavailable', UNREACHABLE, { retryAfterSeconds: 30, cause: error });
  }
}
