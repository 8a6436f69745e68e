// Buying a plan in headless Chromium: Plans → Upgrade → Stripe Checkout (a stand-in) → back with the plan applied by
// its webhook.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { deliver, PRO_PRICE, writeBillingPlansFile } from '../helpers/billing.js';
import { freePort } from '../helpers/processes.js';
import { startStripeStandIn, type StripeStandIn } from '../helpers/stripe-standin.js';
import { CHROMIUM_ARGS } from '../helpers/chromium.js';

const SCREENSHOTS = join(process.cwd(), 'test-output', 'screenshots');
const WAIT_MS = 10_000;

let t: TestApp;
let stripe: StripeStandIn;
let plansDir: string;
let base: string;

beforeAll(async () => {
  await mkdir(SCREENSHOTS, { recursive: true });
  stripe = await startStripeStandIn();
  const plans = await writeBillingPlansFile();
  plansDir = plans.dir;
  // PUBLIC_URL (Checkout's return URLs) must be known before the app is built, so the port is chosen first.
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await createTestApp({ env: { ...stripe.env, PUBLIC_URL: base, QR_PLANS_FILE: plans.file } });
  await t.app.listen({ port, host: '127.0.0.1' });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await stripe?.stop();
  await rm(plansDir, { recursive: true, force: true });
});

describe('buying a plan in the portal', () => {
  it(
    'goes from the Plans page’s Upgrade to the Checkout Session’s URL, and back to a Pro account once Stripe’s ' +
      'events arrive',
    async () => {
      const profile = await mkdtemp(join(tmpdir(), 'qrm-chromium-billing-'));
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: '/usr/bin/chromium',
        args: CHROMIUM_ARGS,
        headless: true,
        viewport: { width: 1200, height: 900 },
        timeout: 30_000,
      });
      try {
        const page = context.pages()[0] ?? (await context.newPage());
        page.setDefaultTimeout(WAIT_MS);
        page.setDefaultNavigationTimeout(WAIT_MS);
        const email = `buyer-${Date.now()}@example.com`;

        // Local sign-in (no provider configured): a browser on this machine.
        await page.goto(`${base}/portal/signin`);
        await page.locator('#email').fill(email);
        await page.getByRole('button', { name: 'Sign in locally' }).click();
        await page.waitForURL(`${base}/portal/`);

        await page
          .getByRole('navigation', { name: 'Portal' })
          .getByRole('link', { name: 'Plans', exact: true })
          .click();
        await page.waitForURL(`${base}/portal/plans`);
        await expect(page.locator('#plan-enterprise').innerText()).resolves.toContain('Not available self-serve');
        await page.screenshot({ path: join(SCREENSHOTS, 'billing-1-plans.png'), fullPage: true });

        await page.locator('#plan-pro').getByRole('button', { name: 'Upgrade' }).click();
        await page.waitForURL(new RegExp(`^${stripe.url}/checkout/cs_test_standin_\\d+$`));
        await expect(page.locator('h1').innerText()).resolves.toBe('Stripe stand-in: checkout');
        const session = stripe.requests.at(-1)!;
        const account = (await t.stores.accounts.findByEmail(email))[0]!;
        expect(session).toMatchObject({
          path: '/v1/checkout/sessions',
          form: { client_reference_id: account.id, customer_email: email, 'line_items[0][price]': PRO_PRICE },
        });

        // "Paid": Stripe holds the subscription and sends its events; then it sends the browser to the success URL.
        const subscription = stripe.putSubscription({
          id: 'sub_browser',
          customer: 'cus_browser',
          status: 'active',
          price: PRO_PRICE,
          accountId: account.id,
          periodEnd: Math.floor(Date.UTC(2031, 0, 31) / 1000),
          created: 1_900_000_000,
        });
        const completed = {
          id: 'cs_done',
          object: 'checkout.session',
          mode: 'subscription',
          client_reference_id: account.id,
          customer: 'cus_browser',
          subscription: 'sub_browser',
        };
        expect((await deliver(t.app, stripe.signedEvent('checkout.session.completed', completed))).statusCode).toBe(
          200,
        );
        expect(
          (await deliver(t.app, stripe.signedEvent('customer.subscription.created', subscription))).statusCode,
        ).toBe(200);
        await page.goto(session.form.success_url!);
        await expect(page.locator('#checkout-notice').innerText()).resolves.toContain('your payment went through');
        await expect(page.locator('#plan-pro .badge').innerText()).resolves.toBe('your plan');
        await expect(page.locator('.who .badge:not(.role)').innerText()).resolves.toBe('pro');
        await expect(page.getByRole('button', { name: 'Upgrade' }).count()).resolves.toBe(0);
        await page.screenshot({ path: join(SCREENSHOTS, 'billing-2-pro.png'), fullPage: true });

        // Manage billing opens the customer portal for the account's customer.
        await page.getByRole('button', { name: 'Manage billing' }).click();
        await page.waitForURL(new RegExp(`^${stripe.url}/portal/bps_standin_\\d+$`));
        expect(stripe.requests.at(-1)).toMatchObject({
          path: '/v1/billing_portal/sessions',
          form: { customer: 'cus_browser', return_url: `${base}/portal/plans` },
        });
      } finally {
        await context.close();
        await rm(profile, { recursive: true, force: true });
      }
    },
    90_000,
  );
});
