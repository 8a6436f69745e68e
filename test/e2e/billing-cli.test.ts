// qrm billing: an operator reads an account's billing state and repairs a missed Stripe event with `sync`; the running
// server follows.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalAccount } from '../../src/services/accounts.js';
import { issueKey } from '../../src/services/api-keys.js';
import { createTestApp, generate, type TestApp } from '../helpers/app.js';
import { PRO_PRICE, writeBillingPlansFile } from '../helpers/billing.js';
import { runCli } from '../helpers/processes.js';
import { startStripeStandIn, type StripeStandIn } from '../helpers/stripe-standin.js';
import { waitFor } from '../helpers/wait.js';

let t: TestApp;
let stripe: StripeStandIn;
let dataDir: string;
let plansDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qrm-billing-cli-'));
  stripe = await startStripeStandIn();
  const plans = await writeBillingPlansFile();
  plansDir = plans.dir;
  env = {
    ...stripe.env,
    QR_DATA_DIR: dataDir,
    QR_PLANS_FILE: plans.file,
    PUBLIC_URL: 'http://127.0.0.1:43998',
    LOG_LEVEL: 'silent',
  };
  t = await createTestApp({ dataDir, env });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await stripe?.stop();
  await rm(dataDir, { recursive: true, force: true });
  await rm(plansDir, { recursive: true, force: true });
});

const svg = async (key: string) =>
  (await generate(t.app, key, { content: 'cli', type: 'text', outputFormat: 'svg' })).statusCode;

describe('qrm billing', () => {
  it(
    'sync applies a subscription whose webhooks never ' +
      'arrived, and again once it ended; show prints the ' +
      'state',
    async () => {
      const deps = { ...t.stores, keyPepper: t.config.keyPepper, clock: () => new Date() };
      const account = await createLocalAccount(deps, 'missed@example.com', 'free');
      const key = (await issueKey(deps, account.id, 'cli')).secret;
      expect(await svg(key)).toBe(403); // the server holds the free plan in its credential cache

      expect((await runCli(['billing', 'show', '--email', 'missed@example.com'], env)).stdout).toContain(
        'plan=free no billing account',
      );
      // Bought at Stripe, but neither checkout.session.completed nor customer.subscription.created reached us.
      const periodEnd = Math.floor(Date.UTC(2031, 0, 31) / 1000);
      const bought = {
        id: 'sub_missed',
        customer: 'cus_missed',
        status: 'active',
        price: PRO_PRICE,
        accountId: account.id,
        periodEnd,
        created: 1_900_000_000,
      };
      stripe.putSubscription(bought);

      const synced = await runCli(['billing', 'sync', '--email', 'missed@example.com'], env);
      expect(synced.stdout).toContain(
        'plan free -> pro; customer cus_missed, subscription sub_missed active until 2031-01-31T00:00:00.000Z',
      );
      // Another process changed the database: the server's credential cache follows within the second.
      await waitFor('the server to allow svg', async () => (await svg(key)) === 200, {
        timeoutMs: 2_000,
        intervalMs: 50,
      });
      const shown = JSON.parse(
        (await runCli(['billing', 'show', '--email', 'missed@example.com', '--json'], env)).stdout,
      ) as Record<string, unknown>;
      expect(shown).toMatchObject({
        plan: 'pro',
        billing: {
          customerId: 'cus_missed',
          subscriptionId: 'sub_missed',
          status: 'active',
          currentPeriodEnd: '2031-01-31T00:00:00.000Z',
        },
      });

      // Cancelled at Stripe, customer.subscription.deleted lost too: sync returns the account to the default plan.
      stripe.putSubscription({ ...bought, status: 'canceled' });
      expect((await runCli(['billing', 'sync', '--email', 'missed@example.com'], env)).stdout).toContain(
        'plan pro -> free',
      );
      await waitFor('the server to refuse svg again', async () => (await svg(key)) === 403, {
        timeoutMs: 2_000,
        intervalMs: 50,
      });
    },
    60_000,
  );

  it('refuses sync without Stripe configured, naming the variables', async () => {
    const { STRIPE_SECRET_KEY: _k, STRIPE_WEBHOOK_SECRET: _w, ...withoutStripe } = env;
    await expect(runCli(['billing', 'sync', '--email', 'missed@example.com'], withoutStripe)).rejects.toThrow(
      /STRIPE_SECRET_KEY/,
    );
  }, 30_000);
});
