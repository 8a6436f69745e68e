// Use case: generate one QR image for an authenticated caller — design, plan check, what to render, metering, render.
import { ApiError } from '../domain/errors.js';
import { periodOf } from '../domain/period.js';
import {
  biggerPlanHint,
  planAllowsFormat,
  type OutputFormat,
  type Plan,
  type PlanCatalogue,
  type PlanId,
} from '../domain/plan-catalogue.js';
import type { Credential } from '../domain/ports/key-store.js';
import type { Renderer } from '../domain/ports/renderer.js';
import type { DrawnSymbol } from '../domain/rendered-image.js';
import type { UsageMeter } from '../domain/ports/usage-meter.js';
import { quotaState, type QuotaState } from '../domain/quota.js';
import type { DesignStore } from '../domain/ports/design-store.js';
import { applyDesign } from './designs.js';
import { matchesIfNoneMatch } from '../domain/render-key.js';
import { burstKeyOf } from './burst.js';
import { requestedImage, type GenerateQrInput, type RenderSpecDeps, type RequestedImage } from './render-spec.js';

export interface GenerateQrDeps extends RenderSpecDeps {
  plans: PlanCatalogue;
  meter: UsageMeter;
  renderer: Renderer;
  clock: () => Date;
  /** Where `design: "des_…"` is read from. */
  designs: Pick<DesignStore, 'get'>;
}

/** The caller's If-None-Match matched: it already holds this exact image. Not metered (as GitHub does for 304s). */
export interface NotModifiedQr {
  notModified: true;
  etag: string;
  /** Present when the 304 was metered (signed URLs count every answer). */
  quota?: QuotaState;
}

export interface GeneratedQr {
  notModified?: false;
  bytes: Uint8Array;
  /** The symbol drawn: answered as QR-Version and QR-Error-Correction (a branded design's level may be raised). */
  symbol: DrawnSymbol;
  format: OutputFormat;
  /** Strong validator: equal for byte-identical images. */
  etag: string;
  quota: QuotaState;
}

/**
 * The caller is an API key's credential, or the portal's signed-in account (the playground, no key).
 * The burst is per API key; the playground's requests share one burst bucket per account, apart from
 * the account's keys: a session script cannot get around the burst, and trying the playground never
 * eats into a production key's second.
 */
type Caller = Pick<Credential, 'accountId' | 'plan'> & { keyId?: string | undefined; burstKey?: string | undefined };

interface Conditions {
  ifNoneMatch?: string | undefined;
  /** Meter a 304 as a request too (signed URLs: every answer we give counts, as the CDN's never reach us). */
  meterNotModified?: boolean | undefined;
}

/** The caller's plan, if it includes the format; otherwise a 403 naming the cheapest plan that does. */
function planAllowing(plans: PlanCatalogue, planId: PlanId, format: OutputFormat): Plan {
  const plan = plans.get(planId);
  if (planAllowsFormat(plan, format)) return plan;
  const upgrade = plans.cheapestWithFormat(format);
  throw new ApiError(
    'plan_upgrade_required',
    `${format} output is not included in the ${plan.name} plan` +
      `${upgrade ? `; it is available from the ${upgrade.name} plan` : ''}`,
    { extensions: { plan: plan.id, ...(upgrade ? { requiredPlan: upgrade.id } : {}) } },
  );
}

/** The request's design applied, its plan checked (before the content: a format the plan lacks is refused first). */
async function prepared(
  deps: GenerateQrDeps,
  caller: Caller,
  input: GenerateQrInput,
): Promise<{ plan: Plan; image: RequestedImage }> {
  if (input.design !== undefined) input = await applyDesign(deps, caller.accountId, input);
  const plan = planAllowing(deps.plans, caller.plan, input.outputFormat);
  return { plan, image: await requestedImage(deps, caller.accountId, input) };
}

/** Without conditions the answer is always an image; with If-None-Match it may be "not modified". */
export async function generateQr(deps: GenerateQrDeps, caller: Caller, input: GenerateQrInput): Promise<GeneratedQr>;
export async function generateQr(
  deps: GenerateQrDeps,
  caller: Caller,
  input: GenerateQrInput,
  conditions: Conditions,
): Promise<GeneratedQr | NotModifiedQr>;
export async function generateQr(
  deps: GenerateQrDeps,
  caller: Caller,
  input: GenerateQrInput,
  conditions: Conditions = {},
): Promise<GeneratedQr | NotModifiedQr> {
  const { plan, image } = await prepared(deps, caller, input);
  return answer(deps, caller, plan, image, conditions);
}

/** An image prepared for a caller, with the plan that was checked for it. */
export interface PreparedImage {
  plan: Plan;
  image: RequestedImage;
}

/**
 * generateQr in two steps, for a caller that keeps the image of fields it hands in again and again (a signed URL
 * whose fields depend on nothing stored, `dependsOnFieldsAlone`): the image first, refused as generateQr refuses…
 */
export async function prepareImage(
  deps: GenerateQrDeps,
  caller: Caller,
  input: GenerateQrInput,
): Promise<PreparedImage> {
  return prepared(deps, caller, input);
}

/**
 * …then its answer: for an image just prepared, under the plan checked then; for a kept one, the plan is checked
 * again (it may have changed since).
 */
export async function generateImage(
  deps: GenerateQrDeps,
  caller: Caller,
  image: RequestedImage | PreparedImage,
  conditions: Conditions,
): Promise<GeneratedQr | NotModifiedQr> {
  if ('plan' in image) return answer(deps, caller, image.plan, image.image, conditions);
  return answer(deps, caller, planAllowing(deps.plans, caller.plan, image.spec.format), image, conditions);
}

/** If-None-Match, then metering, then the render; a render that fails gives its reservation back. */
async function answer(
  deps: GenerateQrDeps,
  caller: Caller,
  plan: Plan,
  image: RequestedImage,
  conditions: Conditions,
): Promise<GeneratedQr | NotModifiedQr> {
  const { type, payload, spec, fingerprint, etag } = image;
  const notModified = matchesIfNoneMatch(conditions.ifNoneMatch, etag);
  if (notModified && !conditions.meterNotModified) return { notModified: true, etag };
  // Before metering: an image that cannot be drawn is refused without counting, and without a matrix being built.
  deps.renderer.assertDrawable(spec);

  const now = deps.clock();
  const outcome = await deps.meter.reserve({
    accountId: caller.accountId,
    period: periodOf(now),
    qr: { fingerprint, type, payload },
    limits: { requests: plan.requestsPerMonth, qrs: plan.qrsPerMonth },
    at: now,
    // An unlimited burst keeps no window at all: no counter work for a dimension that is never refused.
    ...(plan.burstPerSecond === null
      ? {}
      : { burst: { accountId: caller.accountId, key: burstKeyOf(caller), perSecond: plan.burstPerSecond } }),
  });
  const quota = quotaState(plan, outcome.usage, now, outcome.burst);
  if (!outcome.ok) {
    if (outcome.reason === 'rate_limited') {
      // The window slides: the oldest request in it leaves within a second.
      const per = caller.keyId === undefined ? 'in the playground' : 'per API key';
      const detail =
        `the ${plan.name} plan allows ${plan.burstPerSecond} requests a second ${per}; ` +
        'slow down and retry in a second (nothing was counted against the monthly quota)';
      throw new ApiError('rate_limited', detail, { retryAfterSeconds: 1, quota });
    }
    const requests = outcome.reason === 'quota_exceeded';
    const detail =
      (requests
        ? `the ${plan.name} plan allows ${plan.requestsPerMonth} requests a month; the quota resets at ` +
          `${quota.resetAt.toISOString()}`
        : `the ${plan.name} plan allows ${plan.qrsPerMonth} distinct QR codes a month; ` +
          (`codes already generated this month can still be regenerated, and the quota resets at ` +
            `${quota.resetAt.toISOString()}`)) +
      biggerPlanHint(deps.plans, plan, requests ? 'requestsPerMonth' : 'qrsPerMonth');
    throw new ApiError(outcome.reason, detail, { retryAfterSeconds: quota.secondsToReset, quota });
  }

  if (notModified) return { notModified: true, etag, quota };
  try {
    const { bytes, symbol } = await deps.renderer.render(spec, caller);
    return { bytes, symbol, format: spec.format, etag, quota };
  } catch (error) {
    // Only successful generations count: give the reservation back, then report the failure.
    await deps.meter.refund(outcome.reservation);
    throw error;
  }
}
