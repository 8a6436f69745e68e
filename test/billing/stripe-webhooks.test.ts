// Stripe webhooks on two API instances sharing one Redis: signed events move an account's plan on every instance, once,
// in the order Stripe holds.
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalAccount } from '../../src/services/accounts.js';
import { issueKey } from '../../src/services/api-keys.js';
import { deliver, PRO_PRICE, BUSINESS_PRICE, writeBillingPlansFile } from '../helpers/billing.js';
import { generate, type TestApp } from '../helpers/app.js';
import { PortalClient } from '../helpers/portal-client.js';
import { startStripeStandIn, type StripeStandIn } from '../helpers/stripe-standin.js';
import { startTwoInstancesOnRedis, type TwoInstances } from '../helpers/two-instances.js';
import { waitFor } from '../helpers/wait.js';

let stripe: StripeStandIn;
let instances: TwoInstances;
let a: TestApp;
let b: TestApp;
let plansDir: string;

beforeAll(async () => {
  stripe = await startStripeStandIn();
  const plans = await writeBillingPlansFile();
  plansDir = plans.dir;
  // The credential caches keep an entry for an hour, longer than this file runs: only the pushed plan change can update
  // one.
  instances = await startTwoInstancesOnRedis('billing', {
    env: { ...stripe.env, PUBLIC_URL: 'http://127.0.0.1:43999', QR_PLANS_FILE: plans.file },
    cacheTtlMs: 3_600_000,
  });
  ({ a, b } = instances);
}, 60_000);

afterAll(async () => {
  await instances?.close();
  await stripe?.stop();
  await rm(plansDir, { recursive: true, force: true });
});

let seq = 0;
const PERIOD_END = Math.floor(Date.UTC(2031, 5, 30) / 1000);

/** A free account with a key, and the subscription Stripe would hold for it once bought. */
async function newBuyer() {
  const n = ++seq;
  const deps = {
    accounts: a.stores.accounts,
    keys: a.stores.keys,
    keyPepper: a.config.keyPepper,
    clock: () => new Date(),
  };
  const account = await createLocalAccount(deps, `buyer${n}-${Date.now()}@example.com`, 'free');
  const key = (await issueKey(deps, account.id, 'billing')).secret;
  const subscription = (status: string, price = PRO_PRICE) =>
    stripe.putSubscription({
      id: `sub_t${n}`,
      customer: `cus_t${n}`,
      status,
      price,
      accountId: account.id,
      periodEnd: PERIOD_END,
      created: 1_900_000_000 + n,
    });
  return { account, key, subscription, customerId: `cus_t${n}`, subscriptionId: `sub_t${n}` };
}

const svgOn = async (t: TestApp, key: string) =>
  (await generate(t.app, key, { content: 'billing', type: 'text', outputFormat: 'svg' })).statusCode;
const planOf = async (accountId: string) => (await a.stores.accounts.findById(accountId))?.plan;

describe('POST /webhooks/stripe', () => {
  it(
    'moves the account to pro on every instance for a signed customer.subscription.updated of the pro price, and ' +
      'its replay changes nothing',
    async () => {
      const buyer = await newBuyer();
      expect(await svgOn(b, buyer.key)).toBe(403); // B holds the free plan in its credential cache
      const event = stripe.signedEvent('customer.subscription.updated', buyer.subscription('active'));

      const res = await deliver(a.app, event);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ received: true, outcome: 'applied' });
      await waitFor('B to allow svg', async () => (await svgOn(b, buyer.key)) === 200, {
        timeoutMs: 10_000,
        intervalMs: 20,
      });
      expect(await a.stores.accounts.findById(buyer.account.id)).toMatchObject({
        plan: 'pro',
        billing: {
          customerId: buyer.customerId,
          subscriptionId: buyer.subscriptionId,
          status: 'active',
          currentPeriodEnd: new Date(PERIOD_END * 1000),
        },
      });

      // Stripe now says cancelled: were the replay applied again, it would read that and end the plan.
      buyer.subscription('canceled');
      const calls = stripe.requests.length;
      const replay = await deliver(b.app, event);
      expect(replay.statusCode).toBe(200);
      expect(replay.json()).toEqual({ received: true, outcome: 'duplicate' });
      expect(stripe.requests.length).toBe(calls);
      expect(await planOf(buyer.account.id)).toBe('pro');
    },
  );

  it('refuses a forged, altered, stale or unsigned event with 400 and changes nothing', async () => {
    const buyer = await newBuyer();
    const active = buyer.subscription('active');
    const forged = stripe.signedEvent('customer.subscription.updated', active, {
      secret: 'whsec_not_the_endpoint_secret',
    });
    const genuine = stripe.signedEvent('customer.subscription.updated', active);
    const altered = { ...genuine, payload: genuine.payload.replace(buyer.subscriptionId, 'sub_someone_else') };
    const stale = stripe.signedEvent('customer.subscription.updated', active, {
      id: genuine.id,
      timestampSeconds: Math.floor(Date.now() / 1000) - 600,
    });
    const { 'stripe-signature': _dropped, ...unsigned } = genuine.headers;
    const calls = stripe.requests.length;
    for (const [what, res] of [
      ['forged', await deliver(a.app, forged)],
      ['altered', await deliver(a.app, altered)],
      ['stale', await deliver(a.app, stale)],
      ['unsigned', await deliver(a.app, genuine, unsigned)],
    ] as const) {
      expect(res.statusCode, what).toBe(400);
      expect(res.headers['content-type'], what).toMatch(/^application\/problem\+json/);
      expect(res.json(), what).toMatchObject({ status: 400, code: 'invalid_webhook_signature' });
    }
    expect(stripe.requests.length).toBe(calls);
    expect(await planOf(buyer.account.id)).toBe('free');
    expect(await svgOn(a, buyer.key)).toBe(403);
    // Nothing refused was noted as applied: the genuine delivery of the same event id still applies.
    expect((await deliver(a.app, genuine)).json()).toEqual({ received: true, outcome: 'applied' });
    expect(await planOf(buyer.account.id)).toBe('pro');
  });

  it(
    'returns the account to the default plan on customer.subscription.deleted, and a late update cannot bring ' +
      'the plan back',
    async () => {
      const buyer = await newBuyer();
      const created = stripe.signedEvent('customer.subscription.created', buyer.subscription('active'));
      const lateUpdate = stripe.signedEvent('customer.subscription.updated', buyer.subscription('active'));
      expect((await deliver(a.app, created)).statusCode).toBe(200);
      await waitFor('B to allow svg', async () => (await svgOn(b, buyer.key)) === 200, { timeoutMs: 2_000 });

      const deleted = stripe.signedEvent('customer.subscription.deleted', buyer.subscription('canceled'));
      expect((await deliver(b.app, deleted)).json()).toEqual({ received: true, outcome: 'applied' });
      await waitFor('A to refuse svg again', async () => (await svgOn(a, buyer.key)) === 403, { timeoutMs: 2_000 });
      expect(await a.stores.accounts.findById(buyer.account.id)).toMatchObject({
        plan: 'free',
        billing: { status: 'canceled' },
      });

      // Delivered after the deletion although made before it: the subscription Stripe holds is what counts.
      expect((await deliver(a.app, lateUpdate)).statusCode).toBe(200);
      expect(await planOf(buyer.account.id)).toBe('free');
      expect(await svgOn(b, buyer.key)).toBe(403);
    },
  );

  it("records each plan change Stripe's webhook makes in the audit log, as a system actor, once", async () => {
    const buyer = await newBuyer();
    const auditLog = async () =>
      (
        await a.app.inject({
          method: 'GET',
          url: '/api/v1/QRManager/audit-log?action=plan.changed',
          headers: { 'x-api-key': buyer.key },
        })
      ).json().items;
    const created = stripe.signedEvent('customer.subscription.created', buyer.subscription('active'));
    await deliver(a.app, created);
    await deliver(b.app, created); // a redelivery: no second entry
    await deliver(b.app, stripe.signedEvent('customer.subscription.updated', buyer.subscription('past_due')));
    await deliver(b.app, stripe.signedEvent('customer.subscription.deleted', buyer.subscription('canceled')));

    const entries = await auditLog();
    expect(entries).toHaveLength(2); // past due keeps the plan: no change, no entry
    // Both instances' clocks are stopped at one instant: the entries are told apart by what they changed.
    const bought = entries.find((entry: { changes: { to: string } }) => entry.changes.to === 'pro');
    const ended = entries.find((entry: { changes: { to: string } }) => entry.changes.to === 'free');
    expect(bought).toMatchObject({
      actor: { type: 'system', id: 'stripe', label: 'Stripe webhook' },
      target: { type: 'account', id: buyer.account.id },
      changes: { from: 'free', to: 'pro', subscription: buyer.subscriptionId, status: 'active' },
    });
    expect(bought.userAgent).toContain('Stripe');
    expect(ended).toMatchObject({
      actor: { type: 'system', id: 'stripe' },
      changes: { from: 'pro', to: 'free', status: 'canceled' },
    });
    // Filtered by that actor, as an admin would.
    const byStripe = await a.app.inject({
      method: 'GET',
      url: '/api/v1/QRManager/audit-log?actor=stripe',
      headers: { 'x-api-key': buyer.key },
    });
    expect(byStripe.json().items).toHaveLength(2);
  });

  it('keeps the plan while a payment is past due, and says so on every portal page', async () => {
    const buyer = await newBuyer();
    const browser = new PortalClient(b.app);
    await browser.signInLocally(buyer.account.email);
    await deliver(a.app, stripe.signedEvent('customer.subscription.created', buyer.subscription('active')));
    expect(await planOf(buyer.account.id)).toBe('pro');
    expect((await browser.get('/portal/')).body).not.toContain('id="past-due"');
    await deliver(a.app, stripe.signedEvent('customer.subscription.updated', buyer.subscription('past_due')));
    expect(await a.stores.accounts.findById(buyer.account.id)).toMatchObject({
      plan: 'pro',
      billing: { status: 'past_due' },
    });
    expect(await svgOn(b, buyer.key)).toBe(200);
    for (const page of ['/portal/', '/portal/keys', '/portal/plans']) {
      const res = await browser.get(page);
      expect(res.statusCode, page).toBe(200);
      expect(res.body, page).toContain('id="past-due"');
    }
    // Paid again: the banner goes.
    await deliver(a.app, stripe.signedEvent('customer.subscription.updated', buyer.subscription('active')));
    expect((await browser.get('/portal/')).body).not.toContain('id="past-due"');
  });

  it('links the customer and subscription to the account on checkout.session.completed', async () => {
    const buyer = await newBuyer();
    buyer.subscription('active', BUSINESS_PRICE);
    const session = {
      id: 'cs_test_linked',
      object: 'checkout.session',
      mode: 'subscription',
      client_reference_id: buyer.account.id,
      customer: buyer.customerId,
      subscription: buyer.subscriptionId,
    };
    expect((await deliver(a.app, stripe.signedEvent('checkout.session.completed', session))).json()).toEqual({
      received: true,
      outcome: 'applied',
    });
    expect(await a.stores.accounts.findById(buyer.account.id)).toMatchObject({
      plan: 'business',
      billing: { customerId: buyer.customerId, subscriptionId: buyer.subscriptionId, status: 'active' },
    });
    expect((await a.stores.accounts.findByBillingCustomer(buyer.customerId))?.id).toBe(buyer.account.id);
  });

  it(
    'ignores, and logs, a checkout.session.completed whose client_reference_id names an account its subscription ' +
      'does not',
    async () => {
      const victim = await newBuyer();
      const payer = await newBuyer();
      // Bought by another account (its metadata and customer), with the victim's id put in the session's
      // client_reference_id.
      payer.subscription('active', BUSINESS_PRICE);
      const crossed = (id: string, subscription: string, customer: string) => ({
        id,
        object: 'checkout.session',
        mode: 'subscription',
        client_reference_id: victim.account.id,
        customer,
        subscription,
      });
      const first = await deliver(
        a.app,
        stripe.signedEvent(
          'checkout.session.completed',
          crossed('cs_test_crossed', payer.subscriptionId, payer.customerId),
        ),
      );
      expect(first.json()).toEqual({ received: true, outcome: 'ignored' });
      // A subscription without metadata, for a customer linked to no account: ignored too.
      const bare = stripe.putSubscription({
        id: `${victim.subscriptionId}_bare`,
        customer: `${victim.customerId}_bare`,
        status: 'active',
        price: BUSINESS_PRICE,
        periodEnd: PERIOD_END,
        created: 1_990_000_001,
      });
      const second = await deliver(
        a.app,
        stripe.signedEvent(
          'checkout.session.completed',
          crossed('cs_test_bare', bare.id as string, `${victim.customerId}_bare`),
        ),
      );
      expect(second.json()).toEqual({ received: true, outcome: 'ignored' });
      const after = await a.stores.accounts.findById(victim.account.id);
      expect([after?.plan, after?.billing]).toEqual(['free', undefined]);
      expect(
        a.logs.filter((line) => line.includes('checkout session ignored') && line.includes(victim.account.id)),
      ).toHaveLength(2);
    },
  );

  it('finds the account by its customer when a subscription carries no account in its metadata', async () => {
    const buyer = await newBuyer();
    await deliver(a.app, stripe.signedEvent('customer.subscription.created', buyer.subscription('active')));
    // A subscription the operator made in the Stripe dashboard for the same customer: no metadata.
    const manual = stripe.putSubscription({
      id: `${buyer.subscriptionId}_dashboard`,
      customer: buyer.customerId,
      status: 'active',
      price: BUSINESS_PRICE,
      periodEnd: PERIOD_END,
      created: 1_990_000_000,
    });
    expect((await deliver(a.app, stripe.signedEvent('customer.subscription.created', manual))).json()).toMatchObject({
      outcome: 'applied',
    });
    expect(await planOf(buyer.account.id)).toBe('business');
  });

  it('answers a signed body that is not an event with 400 invalid_request, never a 500', async () => {
    const signer = stripe.signedEvent('customer.subscription.updated', {});
    for (const payload of ['{"id":"evt_x","type":"customer.subscription.updated"}', 'not json', '{}']) {
      const signature = stripe.sign(payload);
      const res = await a.app.inject({
        method: 'POST',
        url: '/webhooks/stripe',
        headers: { ...signer.headers, 'stripe-signature': signature },
        payload,
      });
      expect(res.statusCode, payload).toBe(400);
      expect(res.json(), payload).toMatchObject({ code: 'invalid_request' });
    }
  });

  it('acknowledges and ignores event types it does not act on, and events for accounts it does not have', async () => {
    const other = await deliver(a.app, stripe.signedEvent('invoice.paid', { id: 'in_1', object: 'invoice' }));
    expect(other.statusCode).toBe(200);
    expect(other.json()).toEqual({ received: true, outcome: 'ignored' });
    const stranger = stripe.putSubscription({
      id: 'sub_stranger',
      customer: 'cus_stranger',
      status: 'active',
      price: PRO_PRICE,
      periodEnd: PERIOD_END,
      created: 1,
    });
    expect((await deliver(a.app, stripe.signedEvent('customer.subscription.updated', stranger))).json()).toEqual({
      received: true,
      outcome: 'ignored',
    });
  });

  it('is documented in the OpenAPI document as a public operation', async () => {
    const document = (await a.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<
        string,
        Record<
          string,
          { operationId: string; security: unknown[]; responses: Record<string, unknown>; requestBody: unknown }
        >
      >;
    };
    const operation = document.paths['/webhooks/stripe']!.post!;
    expect(operation.operationId).toBe('receiveStripeEvent');
    expect(operation.security).toEqual([]);
    // 404: on a Host that is not this service's own (a custom domain), as every operation; 408 and 429: a body too
    // slow,
    // or too many uploads from one address, as every operation that takes a body.
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '404', '408', '413', '429', '500', '503']);
    expect(operation.requestBody).toMatchObject({ content: { 'application/json': {} } });
  });
});

describe('the portal with Stripe configured', () => {
  const PLANS_PAGE = 'http://127.0.0.1:43999/portal/plans';

  async function signedIn() {
    const buyer = await newBuyer();
    const browser = new PortalClient(a.app);
    await browser.signInLocally(buyer.account.email);
    return { buyer, browser, csrf: await browser.csrfFrom('/portal/plans') };
  }

  const upgradeForm = (plan: string) =>
    new RegExp(
      `<input type="hidden" name="plan" value="${plan}">\\s*<button type="submit" class="primary">Upgrade</button>`,
    );

  it(
    'offers Upgrade on each plan that names a Stripe ' + 'price, and says which paid plan cannot be bought ' + 'here',
    async () => {
      const { browser } = await signedIn();
      const page = (await browser.get('/portal/plans')).body;
      expect(page).toMatch(upgradeForm('pro'));
      expect(page).toMatch(upgradeForm('business'));
      expect(page).not.toMatch(upgradeForm('enterprise'));
      expect(page).not.toMatch(upgradeForm('free'));
      expect(page).toMatch(/id="plan-enterprise"[\s\S]*Not available self-serve/);
      expect(page).not.toContain('an upgrade is an operator action');
    },
  );

  it('answers Upgrade with a 303 to a Checkout Session in subscription mode for the account', async () => {
    const { buyer, browser, csrf } = await signedIn();
    const before = stripe.requests.length;
    const refused = await browser.postForm('/portal/billing/checkout', { plan: 'pro' });
    expect(refused.statusCode).toBe(403);
    expect(stripe.requests.length).toBe(before);

    const res = await browser.postForm('/portal/billing/checkout', { plan: 'pro', _csrf: csrf });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toMatch(new RegExp(`^${stripe.url}/checkout/cs_test_standin_\\d+$`));
    const sent = stripe.requests.at(-1)!;
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/checkout/sessions' });
    expect(sent.form).toMatchObject({
      mode: 'subscription',
      client_reference_id: buyer.account.id,
      'subscription_data[metadata][accountId]': buyer.account.id,
      customer_email: buyer.account.email,
      'line_items[0][price]': PRO_PRICE,
      'line_items[0][quantity]': '1',
      success_url: `${PLANS_PAGE}?checkout=success`,
      cancel_url: `${PLANS_PAGE}?checkout=cancelled`,
    });
    const back = await browser.get('/portal/plans?checkout=success');
    expect(back.body).toContain('id="checkout-notice"');
  });

  it('refuses a plan that cannot be bought self-serve, and a second subscription, without calling Stripe', async () => {
    const { buyer, browser, csrf } = await signedIn();
    const before = stripe.requests.length;
    for (const plan of ['enterprise', 'free', 'no-such-plan']) {
      const res = await browser.postForm('/portal/billing/checkout', { plan, _csrf: csrf });
      expect(res.statusCode, plan).toBe(400);
      expect(res.headers['content-type'], plan).toMatch(/^text\/html/);
    }
    expect(stripe.requests.length).toBe(before);

    await deliver(a.app, stripe.signedEvent('customer.subscription.created', buyer.subscription('active')));
    const page = (await browser.get('/portal/plans')).body;
    expect(page).not.toMatch(upgradeForm('business'));
    expect((await browser.postForm('/portal/billing/checkout', { plan: 'business', _csrf: csrf })).statusCode).toBe(
      409,
    );
  });

  it("opens the Stripe customer portal for the account's customer on Manage billing, once it has one", async () => {
    const { buyer, browser, csrf } = await signedIn();
    const none = await browser.postForm('/portal/billing/manage', { _csrf: csrf });
    expect(none.statusCode).toBe(400);
    expect((await browser.get('/portal/plans')).body).not.toContain('Manage billing</button>');

    await deliver(a.app, stripe.signedEvent('customer.subscription.created', buyer.subscription('active')));
    expect((await browser.get('/portal/plans')).body).toContain('Manage billing</button>');
    expect((await browser.postForm('/portal/billing/manage', {})).statusCode).toBe(403);
    const res = await browser.postForm('/portal/billing/manage', { _csrf: csrf });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toMatch(new RegExp(`^${stripe.url}/portal/bps_standin_\\d+$`));
    expect(stripe.requests.at(-1)).toMatchObject({
      path: '/v1/billing_portal/sessions',
      form: { customer: buyer.customerId, return_url: PLANS_PAGE },
    });
  });
});
