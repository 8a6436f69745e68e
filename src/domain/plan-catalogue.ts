// The plan catalogue: the one value that says what each plan allows, built once at start and passed down.

export const OUTPUT_FORMATS = ['png', 'webp', 'svg', 'pdf', 'eps'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** A plan's id: the built-in `free`, `pro`, `business`, or whatever an operator's plans file names. */
export type PlanId = string;

/** A limit; `null` means unlimited (the dimension is neither checked nor, for the burst, tracked). */
export type Limit = number | null;

export interface Plan {
  id: PlanId;
  name: string;
  /** Price in US dollars per month; 0 for free. */
  monthlyPriceUsd: number;
  /** Successful generations per calendar month (UTC). */
  requestsPerMonth: Limit;
  /** Distinct codes (type + payload) per calendar month (UTC). */
  qrsPerMonth: Limit;
  /** Short-term ceiling per API key, requests per second. */
  burstPerSecond: Limit;
  formats: readonly OutputFormat[];
  /** Dynamic codes an account may hold at once (active or paused; deleted ones free their place). */
  activeDynamicCodes: Limit;
  /** Items one batch may hold (POST …/batches). */
  maxBatchItems: Limit;
  /** Batches queued or running at once per account. */
  batchesInFlight: Limit;
  /** Logos stored per account (branded codes). */
  logos: Limit;
  /** The Stripe price that buys this plan self-serve (plans file only); without one the plan is an operator action. */
  stripePriceId?: string;
  /** Saved designs per account. */
  designs: Limit;
  /** Custom domains per account (0: not included). */
  customDomains: Limit;
  /** Days an audit-log entry is kept after it was written (null: kept for good). */
  auditLogDays: Limit;
  /**
   * Days a code's scan detail (unique scanners, device, language, country, city, hour and split-arm counts) is kept
   * after the day it counts (null: kept for good); older days keep only their scan and bot totals.
   */
  scanRetentionDays: Limit;
}

/** The figures later features add: optional in a plans file, where absent means the default below. */
export const FEATURE_FIGURES = [
  'activeDynamicCodes',
  'maxBatchItems',
  'batchesInFlight',
  'logos',
  'designs',
  'customDomains',
  'auditLogDays',
  'scanRetentionDays',
] as const;
export type FeatureFigure = (typeof FEATURE_FIGURES)[number];
export type FeatureFigures = Record<FeatureFigure, Limit>;

/**
 * Each feature's documented default (README "Plans"): a plan named like a built-in one takes that
 * plan's figures; any other plan takes the free plan's when it costs nothing, the pro plan's when paid.
 */
export const FEATURE_DEFAULTS: Record<'free' | 'pro' | 'business', FeatureFigures> = {
  free: {
    activeDynamicCodes: 5,
    maxBatchItems: 100,
    batchesInFlight: 1,
    logos: 1,
    designs: 3,
    customDomains: 0,
    auditLogDays: 30,
    scanRetentionDays: 30,
  },
  pro: {
    activeDynamicCodes: 1_000,
    maxBatchItems: 10_000,
    batchesInFlight: 3,
    logos: 25,
    designs: 100,
    customDomains: 3,
    auditLogDays: 90,
    scanRetentionDays: 395,
  },
  business: {
    activeDynamicCodes: 50_000,
    maxBatchItems: 50_000,
    batchesInFlight: 10,
    logos: 250,
    designs: 1_000,
    customDomains: 20,
    auditLogDays: 365,
    scanRetentionDays: 1_095,
  },
};

export function featureDefaults(planId: PlanId, monthlyPriceUsd: number): FeatureFigures {
  if (planId === 'free' || planId === 'pro' || planId === 'business') return FEATURE_DEFAULTS[planId];
  return monthlyPriceUsd > 0 ? FEATURE_DEFAULTS.pro : FEATURE_DEFAULTS.free;
}

/** Today's three plans: the catalogue when no plans file is configured. */
export const BUILT_IN_PLANS: readonly Plan[] = [
  {
    id: 'free',
    name: 'Free',
    monthlyPriceUsd: 0,
    requestsPerMonth: 500,
    qrsPerMonth: 5,
    burstPerSecond: 10,
    formats: ['png', 'webp'],
    ...FEATURE_DEFAULTS.free,
  },
  {
    id: 'pro',
    name: 'Pro',
    monthlyPriceUsd: 19,
    requestsPerMonth: 100_000,
    qrsPerMonth: 10_000,
    burstPerSecond: 100,
    formats: ['png', 'webp', 'svg', 'pdf', 'eps'],
    ...FEATURE_DEFAULTS.pro,
  },
  {
    id: 'business',
    name: 'Business',
    monthlyPriceUsd: 99,
    requestsPerMonth: 2_000_000,
    qrsPerMonth: 200_000,
    burstPerSecond: 1_000,
    formats: ['png', 'webp', 'svg', 'pdf', 'eps'],
    ...FEATURE_DEFAULTS.business,
  },
];

/** An account names a plan this catalogue does not define (the plans file changed under it). */
export class UnknownPlanError extends Error {
  override name = 'UnknownPlanError';
  constructor(readonly planId: string) {
    super(`plan "${planId}" is not in the plan catalogue`);
  }
}

export class PlanCatalogue {
  readonly plans: readonly Plan[];
  readonly defaultPlan: Plan;
  readonly #byId: ReadonlyMap<PlanId, Plan>;
  readonly #byStripePrice: ReadonlyMap<string, Plan>;

  /** The plans in display order (cheapest first reads best); `defaultPlanId` is what new accounts get. */
  constructor(plans: readonly Plan[], defaultPlanId: PlanId) {
    this.plans = plans;
    this.#byId = new Map(plans.map((plan) => [plan.id, plan]));
    this.#byStripePrice = new Map(
      plans.flatMap((plan) => (plan.stripePriceId === undefined ? [] : [[plan.stripePriceId, plan] as const])),
    );
    const fallback = this.#byId.get(defaultPlanId);
    if (!fallback) throw new UnknownPlanError(defaultPlanId);
    this.defaultPlan = fallback;
  }

  static builtIn(): PlanCatalogue {
    return new PlanCatalogue(BUILT_IN_PLANS, 'free');
  }

  has(id: PlanId): boolean {
    return this.#byId.has(id);
  }

  /** The plan, or UnknownPlanError: start-up has checked every account's plan, so this is a bug or a changed file. */
  get(id: PlanId): Plan {
    const plan = this.#byId.get(id);
    if (!plan) throw new UnknownPlanError(id);
    return plan;
  }

  /** The plan a Stripe price buys (a subscription's price names its plan), if any. */
  byStripePriceId(priceId: string): Plan | undefined {
    return this.#byStripePrice.get(priceId);
  }

  /** The cheapest plan allowing more than `plan` of a monthly limit (null: unlimited), for the hint in a quota 429. */
  cheapestAbove(plan: Plan, limitOf: (plan: Plan) => Limit): Plan | undefined {
    const current = limitOf(plan);
    if (current === null) return undefined;
    const larger = this.plans.filter((other) => {
      const limit = limitOf(other);
      return other.id !== plan.id && (limit === null || limit > current);
    });
    return larger.reduce<Plan | undefined>(
      (best, other) => (best === undefined || other.monthlyPriceUsd < best.monthlyPriceUsd ? other : best),
      undefined,
    );
  }

  /** The cheapest plan that offers a format, for the upgrade hint in a 403. */
  cheapestWithFormat(format: OutputFormat): Plan | undefined {
    const offering = this.plans.filter((plan) => planAllowsFormat(plan, format));
    return offering.reduce<Plan | undefined>(
      (best, plan) => (best === undefined || plan.monthlyPriceUsd < best.monthlyPriceUsd ? plan : best),
      undefined,
    );
  }
}

/** `; the pro plan allows 100000 requests a month`: the quota 429's way forward, or nothing on the largest plan. */
export function biggerPlanHint(plans: PlanCatalogue, plan: Plan, limit: 'requestsPerMonth' | 'qrsPerMonth'): string {
  const bigger = plans.cheapestAbove(plan, (other) => other[limit]);
  if (!bigger) return '';
  const allows = bigger[limit] === null ? 'unlimited' : String(bigger[limit]);
  const what = limit === 'requestsPerMonth' ? 'requests' : 'distinct QR codes';
  return `; the ${bigger.name} plan allows ${allows} ${what} a month`;
}

export function planAllowsFormat(plan: Plan, format: OutputFormat): boolean {
  return plan.formats.includes(format);
}

/** A plan a developer can buy in the portal (when Stripe is configured): a paid plan that names its Stripe price. */
export function isSelfServe(plan: Plan): boolean {
  return plan.monthlyPriceUsd > 0 && plan.stripePriceId !== undefined;
}

/** How many dynamic codes the plan lets an account hold at once. */
export function dynamicCodeLimit(plan: Plan): Limit {
  return plan.activeDynamicCodes;
}
