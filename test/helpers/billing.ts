// Billing test fixtures: a plans file whose paid plans name stand-in Stripe prices, and a way to deliver signed events.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { BUILT_IN_PLANS } from '../../src/domain/plan-catalogue.js';
import type { SignedEvent } from './stripe-standin.js';

export const PRO_PRICE = 'price_standin_pro';
export const BUSINESS_PRICE = 'price_standin_business';

/**
 * The built-in plans with Stripe prices on pro and business, and a paid `enterprise` plan that names none (not
 * self-serve).
 */
export async function writeBillingPlansFile(): Promise<{ dir: string; file: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'qrm-billing-plans-'));
  const prices: Record<string, string> = { pro: PRO_PRICE, business: BUSINESS_PRICE };
  const plans = [
    ...BUILT_IN_PLANS.map((plan) => ({
      ...plan,
      formats: [...plan.formats],
      ...(prices[plan.id] ? { stripePriceId: prices[plan.id] } : {}),
    })),
    {
      ...BUILT_IN_PLANS[2]!,
      formats: [...BUILT_IN_PLANS[2]!.formats],
      id: 'enterprise',
      name: 'Enterprise',
      monthlyPriceUsd: 999,
    },
  ];
  const file = join(dir, 'plans.json');
  await writeFile(file, JSON.stringify({ plans, default: 'free' }));
  return { dir, file };
}

/** Delivers a signed event to POST /webhooks/stripe, exactly as Stripe would send it. */
export function deliver(app: FastifyInstance, event: SignedEvent, headers: Record<string, string> = event.headers) {
  return app.inject({ method: 'POST', url: '/webhooks/stripe', headers, payload: event.payload });
}
