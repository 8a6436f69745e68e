// The operator's plans file (QR_PLANS_FILE): its zod schema, and the plan catalogue it builds, validated once at start.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError } from './config.js';
import {
  FEATURE_FIGURES,
  featureDefaults,
  OUTPUT_FORMATS,
  PlanCatalogue,
  type FeatureFigures,
  type Plan,
} from './domain/plan-catalogue.js';

// Ids appear in URLs, CSS classes and `qrm --plan`: short and plain.
const PLAN_ID = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const MAX_FILE_BYTES = 256 * 1024;

/** null: unlimited. */
const limit = z.number().int().min(0).max(1e12).nullable();
/** Absent: the feature's documented default; null: unlimited. */
const featureLimit = limit.optional();

const PlanEntry = z.strictObject({
  id: z.string().regex(PLAN_ID, 'must be 1–32 characters of a-z, 0-9, - and _, starting with a letter or digit'),
  name: z.string().trim().min(1).max(64),
  monthlyPriceUsd: z.number().min(0).max(1e6),
  requestsPerMonth: limit,
  qrsPerMonth: limit,
  burstPerSecond: z.number().int().min(1).max(1e9).nullable(),
  formats: z
    .array(
      z.enum(OUTPUT_FORMATS, {
        error: (issue) => `unknown format ${JSON.stringify(issue.input)} (known: ${OUTPUT_FORMATS.join(', ')})`,
      }),
    )
    .min(1)
    .max(OUTPUT_FORMATS.length)
    .refine((formats) => new Set(formats).size === formats.length, 'lists a format twice'),
  activeDynamicCodes: featureLimit,
  maxBatchItems: featureLimit,
  batchesInFlight: featureLimit,
  logos: featureLimit,
  // Stripe's own ids (price_…): letters, digits and underscores.
  stripePriceId: z
    .string()
    .regex(/^[A-Za-z0-9_]{1,255}$/, 'must be a Stripe price id (price_…)')
    .optional(),
  designs: featureLimit,
  customDomains: featureLimit,
  auditLogDays: featureLimit,
  scanRetentionDays: featureLimit,
});

export const PlansFileSchema = z
  .strictObject({
    plans: z.array(PlanEntry).min(1).max(100),
    default: z.string().max(32),
  })
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    file.plans.forEach((plan, index) => {
      if (seen.has(plan.id))
        ctx.addIssue({ code: 'custom', path: ['plans', index, 'id'], message: `plan "${plan.id}" is defined twice` });
      seen.add(plan.id);
    });
    // A subscription's price names its plan: one price, one plan.
    const prices = new Map<string, string>();
    file.plans.forEach((plan, index) => {
      if (plan.stripePriceId === undefined) return;
      const other = prices.get(plan.stripePriceId);
      if (other !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['plans', index, 'stripePriceId'],
          message: `is plan "${other}"'s price too (one price, one plan)`,
        });
      }
      if (plan.id === file.default) {
        ctx.addIssue({
          code: 'custom',
          path: ['plans', index, 'stripePriceId'],
          message: 'the default plan is where an ended subscription returns: it has no price',
        });
      }
      prices.set(plan.stripePriceId, plan.id);
    });
    if (!seen.has(file.default))
      ctx.addIssue({
        code: 'custom',
        path: ['default'],
        message: `names plan "${file.default}", which the file does not define`,
      });
  });

/** "plans[1] (plan "pro").formats[2]": the field, and the plan it belongs to when the file names one. */
function describePath(path: readonly PropertyKey[], raw: unknown): string {
  if (path.length === 0) return '(the file)';
  let out = '';
  path.forEach((segment, i) => {
    out += typeof segment === 'number' ? `[${segment}]` : `${i === 0 ? '' : '.'}${String(segment)}`;
    if (i === 1 && path[0] === 'plans' && typeof segment === 'number') {
      const id = (raw as { plans?: { id?: unknown }[] }).plans?.[segment]?.id;
      if (typeof id === 'string') out += ` (plan "${id.slice(0, 32)}")`;
    }
  });
  return out;
}

/** Pure: the catalogue a file's text describes, or a ConfigError naming the file, the plan and the field. */
export function parsePlansFile(text: string, fileName: string): PlanCatalogue {
  const where = `QR_PLANS_FILE ${fileName}`;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${where}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const parsed = PlansFileSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 10)
      .map((issue) => `${describePath(issue.path, raw)}: ${issue.message}`);
    throw new ConfigError(`${where}: ${problems.join('; ')}`);
  }
  const plans: Plan[] = parsed.data.plans.map((entry) => {
    const defaults = featureDefaults(entry.id, entry.monthlyPriceUsd);
    const features = Object.fromEntries(
      FEATURE_FIGURES.map((figure) => [figure, entry[figure] === undefined ? defaults[figure] : entry[figure]]),
    ) as FeatureFigures;
    const { id, name, monthlyPriceUsd, requestsPerMonth, qrsPerMonth, burstPerSecond, formats, stripePriceId } = entry;
    return {
      id,
      name,
      monthlyPriceUsd,
      requestsPerMonth,
      qrsPerMonth,
      burstPerSecond,
      formats,
      ...features,
      ...(stripePriceId ? { stripePriceId } : {}),
    };
  });
  return new PlanCatalogue(plans, parsed.data.default);
}

/** How messages name where the plans came from. */
export function plansSource(plansFile: string | undefined): string {
  return plansFile === undefined ? 'the built-in plans (QR_PLANS_FILE unset)' : `QR_PLANS_FILE ${resolve(plansFile)}`;
}

/** The catalogue for this process: the file's plans, or today's three without one. Read once, at start. */
export function loadPlanCatalogue(plansFile: string | undefined): PlanCatalogue {
  if (plansFile === undefined) return PlanCatalogue.builtIn();
  const fileName = resolve(plansFile);
  let text: string;
  try {
    const bytes = readFileSync(fileName);
    if (bytes.byteLength > MAX_FILE_BYTES) throw new Error(`larger than ${MAX_FILE_BYTES} bytes`);
    text = bytes.toString('utf8');
  } catch (error) {
    throw new ConfigError(
      `QR_PLANS_FILE ${fileName}: cannot be read (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  return parsePlansFile(text, fileName);
}
