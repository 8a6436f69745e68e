// A STAND-IN for Stripe's API on loopback: answers only the few calls QR Manager makes, through the official `stripe`
// library. Never proof of Stripe's behaviour.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

/** What tests set as the webhook endpoint's secret (the app's STRIPE_WEBHOOK_SECRET). */
export const STANDIN_WEBHOOK_SECRET = 'whsec_standin_0123456789abcdef';
export const STANDIN_SECRET_KEY = 'sk_test_standin_0123456789';

export interface StandInSubscription {
  id: string;
  customer: string;
  status: string;
  price: string;
  accountId?: string;
  /** Seconds since the epoch. */
  periodEnd: number;
  created: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** The form fields the library sent (bracketed keys as sent, e.g. `subscription_data[metadata][accountId]`). */
  form: Record<string, string>;
}

export interface StripeStandIn {
  /** STRIPE_API_URL for the app under test. */
  url: string;
  /** The env that configures the app (and qrm) for this stand-in; PUBLIC_URL is the caller's. */
  env: Record<string, string>;
  requests: RecordedRequest[];
  /** Puts (or replaces) a subscription as "Stripe" holds it; returns the Stripe-shaped object. */
  putSubscription(subscription: StandInSubscription): Record<string, unknown>;
  /** A signed delivery of an event, as Stripe would POST it (signature made by the library's test-header helper). */
  signedEvent(
    type: string,
    object: Record<string, unknown>,
    options?: { id?: string; timestampSeconds?: number; secret?: string },
  ): SignedEvent;
  /** A Stripe-Signature header for any body, made with the endpoint's secret (the library's test-header helper). */
  sign(payload: string): string;
  stop(): Promise<void>;
}

export interface SignedEvent {
  id: string;
  payload: string;
  headers: Record<string, string>;
}

function subscriptionObject(s: StandInSubscription): Record<string, unknown> {
  return {
    id: s.id,
    object: 'subscription',
    customer: s.customer,
    status: s.status,
    created: s.created,
    metadata: s.accountId ? { accountId: s.accountId } : {},
    items: {
      object: 'list',
      data: [
        {
          id: `si_${s.id}`,
          object: 'subscription_item',
          price: { id: s.price, object: 'price' },
          quantity: 1,
          current_period_end: s.periodEnd,
        },
      ],
      has_more: false,
    },
  };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(response: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

function missing(response: ServerResponse, what: string): void {
  send(response, 404, {
    error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${what}` },
  });
}

let sequence = 0;

export async function startStripeStandIn(): Promise<StripeStandIn> {
  const subscriptions = new Map<string, StandInSubscription>();
  const requests: RecordedRequest[] = [];
  // The official library only to sign events, exactly as a test would with real Stripe.
  const signer = new Stripe(STANDIN_SECRET_KEY);
  let base = '';

  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://standin');
      const raw = await readBody(request);
      const form = Object.fromEntries(new URLSearchParams(request.method === 'GET' ? url.search : raw));
      // Pages a browser is sent to: Checkout and the customer portal, as plain stand-in pages.
      if (request.method === 'GET' && /^\/(checkout|portal)\//.test(url.pathname)) {
        send(
          response,
          200,
          `<!doctype html><title>Stripe stand-in</title><h1>Stripe stand-in: ${url.pathname.split('/')[1]}</h1>`,
          'text/html',
        );
        return;
      }
      // What a browser asks for besides (its favicon): not an API call.
      if (!url.pathname.startsWith('/v1/')) {
        missing(response, url.pathname);
        return;
      }
      requests.push({ method: request.method ?? '', path: url.pathname, form });
      if (request.headers.authorization !== `Bearer ${STANDIN_SECRET_KEY}`) {
        send(response, 401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
        return;
      }
      const n = ++sequence;
      if (request.method === 'POST' && url.pathname === '/v1/checkout/sessions') {
        const id = `cs_test_standin_${n}`;
        send(response, 200, {
          id,
          object: 'checkout.session',
          mode: form.mode,
          client_reference_id: form.client_reference_id ?? null,
          customer: form.customer ?? null,
          customer_email: form.customer_email ?? null,
          url: `${base}/checkout/${id}`,
        });
        return;
      }
      if (request.method === 'POST' && url.pathname === '/v1/billing_portal/sessions') {
        const id = `bps_standin_${n}`;
        send(response, 200, {
          id,
          object: 'billing_portal.session',
          customer: form.customer,
          return_url: form.return_url,
          url: `${base}/portal/${id}`,
        });
        return;
      }
      if (request.method === 'GET' && url.pathname === '/v1/subscriptions/search') {
        const wanted = /^metadata\['accountId'\]:'([^']+)'$/.exec(url.searchParams.get('query') ?? '')?.[1];
        const data = [...subscriptions.values()]
          .filter((s) => wanted !== undefined && s.accountId === wanted)
          .map(subscriptionObject);
        send(response, 200, {
          object: 'search_result',
          data,
          has_more: false,
          next_page: null,
          url: '/v1/subscriptions/search',
        });
        return;
      }
      if (request.method === 'GET' && url.pathname === '/v1/subscriptions') {
        const customer = url.searchParams.get('customer');
        const data = [...subscriptions.values()].filter((s) => s.customer === customer).map(subscriptionObject);
        send(response, 200, { object: 'list', data, has_more: false, url: '/v1/subscriptions' });
        return;
      }
      const one = /^\/v1\/subscriptions\/([A-Za-z0-9_]+)$/.exec(url.pathname);
      if (request.method === 'GET' && one) {
        const found = subscriptions.get(one[1]!);
        if (found) send(response, 200, subscriptionObject(found));
        else missing(response, `subscription: '${one[1]}'`);
        return;
      }
      missing(response, `route ${request.method} ${url.pathname} in the stand-in`);
    })().catch((error: unknown) => send(response, 500, { error: { type: 'api_error', message: String(error) } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    env: { STRIPE_SECRET_KEY: STANDIN_SECRET_KEY, STRIPE_WEBHOOK_SECRET: STANDIN_WEBHOOK_SECRET, STRIPE_API_URL: base },
    requests,
    putSubscription(subscription) {
      subscriptions.set(subscription.id, { ...subscription });
      return subscriptionObject(subscription);
    },
    signedEvent(type, object, options = {}) {
      const id = options.id ?? `evt_standin_${++sequence}`;
      const timestamp = options.timestampSeconds ?? Math.floor(Date.now() / 1000);
      const payload = JSON.stringify({
        id,
        object: 'event',
        type,
        created: timestamp,
        api_version: Stripe.API_VERSION,
        data: { object },
      });
      const signature = signer.webhooks.generateTestHeaderString({
        payload,
        secret: options.secret ?? STANDIN_WEBHOOK_SECRET,
        timestamp,
      });
      return {
        id,
        payload,
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'stripe-signature': signature,
          // What Stripe's deliveries send.
          'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
        },
      };
    },
    sign(payload) {
      return signer.webhooks.generateTestHeaderString({
        payload,
        secret: STANDIN_WEBHOOK_SECRET,
        timestamp: Math.floor(Date.now() / 1000),
      });
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
