// The plan catalogue: the one place that says what each plan allows.

export const OUTPUT_FORMATS = ['png', 'webp', 'svg'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const PLAN_IDS = ['free', 'pro', 'business'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export interface Plan {
  id: PlanId;
  name: string;
  /** Price in US dollars per month; 0 for free. */
  monthlyPriceUsd: number;
  /** Successful generations per calendar month (UTC). */
  requestsPerMonth: number;
  /** Distinct codes (type + payload) per calendar month (UTC). */
  qrsPerMonth: number;
  /** Short-term ceiling per API key, requests per second. */
  burstPerSecond: number;
  formats: readonly OutputFormat[];
  /** Dynamic codes an account may hold at once (active or paused; deleted ones free their place). */
  activeDynamicCodes: number;
  /** Items one batch may hold (POST …/batches). */
  maxBatchItems: number;
  /** Batches queued or running at once per account. */
  batchesInFlight: number;
}

const PLANS: Record<PlanId, Plan> = {
  free: {
    id: 'free',
    name: 'Free',
    monthlyPriceUsd: 0,
    requestsPerMonth: 500,
    qrsPerMonth: 5,
    burstPerSecond: 10,
    formats: ['png', 'webp'],
    activeDynamicCodes: 5,
    maxBatchItems: 100,
    batchesInFlight: 1,
  },
  pro: {
    id: 'pro',
    name: 'Pro',
    monthlyPriceUsd: 19,
    requestsPerMonth: 100_000,
    qrsPerMonth: 10_000,
    burstPerSecond: 100,
    formats: ['png', 'webp', 'svg'],
    activeDynamicCodes: 1_000,
    maxBatchItems: 10_000,
    batchesInFlight: 3,
  },
  business: {
    id: 'business',
    name: 'Business',
    monthlyPriceUsd: 99,
    requestsPerMonth: 2_000_000,
    qrsPerMonth: 200_000,
    burstPerSecond: 1_000,
    formats: ['png', 'webp', 'svg'],
    activeDynamicCodes: 50_000,
    maxBatchItems: 50_000,
    batchesInFlight: 10,
  },
};

export function isPlanId(value: string): value is PlanId {
  return (PLAN_IDS as readonly string[]).includes(value);
}

export function planById(id: PlanId): Plan {
  return PLANS[id];
}

export function allPlans(): Plan[] {
  return PLAN_IDS.map((id) => PLANS[id]);
}

export function planAllowsFormat(plan: Plan, format: OutputFormat): boolean {
  return plan.formats.includes(format);
}

/** The cheapest plan that offers a format, for the upgrade hint in a 403. */
export function cheapestPlanWithFormat(format: OutputFormat): Plan | undefined {
  return allPlans().find((plan) => planAllowsFormat(plan, format));
}

/** How many dynamic codes the plan lets an account hold at once. */
export function dynamicCodeLimit(plan: Plan): number {
  return plan.activeDynamicCodes;
}
