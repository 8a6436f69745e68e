// Use case: generate one QR image for an authenticated caller — plan check, content, metering, render.
import { createHash } from 'node:crypto';
import { contentEncoderFor, encodeContent, type QrType } from '../domain/content/index.js';
import { ApiError, invalidField } from '../domain/errors.js';
import { cmykToHex, DPI_LIMITS, isPrintFormat, isRasterFormat, MM_PER_INCH, parseCmyk, pixelsFor, type Cmyk } from '../domain/print.js';
import { periodOf } from '../domain/period.js';
import { biggerPlanHint, planAllowsFormat, type OutputFormat, type PlanCatalogue } from '../domain/plan-catalogue.js';
import type { Credential } from '../domain/ports/key-store.js';
import type { Renderer } from '../domain/ports/renderer.js';
import type { DrawnSymbol } from '../domain/rendered-image.js';
import type { UsageMeter } from '../domain/ports/usage-meter.js';
import { quotaState, type QuotaState } from '../domain/quota.js';
import { LOGO_SCALE_LIMITS, type Branding } from '../domain/branding.js';
import type { LogoStore } from '../domain/ports/logo-store.js';
import type { DesignOptions } from '../domain/design.js';
import type { DesignStore } from '../domain/ports/design-store.js';
import { applyDesign } from './designs.js';
import {
  assertContrast,
  assertScannableColours,
  canonicalColour,
  DEFAULT_DARK,
  DEFAULT_LIGHT,
  MARGIN_LIMITS,
  SIZE_LIMITS,
  type RenderSpec,
} from '../domain/render-options.js';
import { matchesIfNoneMatch, renderTag } from '../domain/render-key.js';
import { burstKeyOf } from './burst.js';

export interface GenerateQrDeps {
  plans: PlanCatalogue;
  meter: UsageMeter;
  renderer: Renderer;
  clock: () => Date;
  /** Where named logos are read from (a cached store: a branded PNG with a known logo must cost little). */
  logos: Pick<LogoStore, 'get'>;
  /** Where `design: "des_…"` is read from. */
  designs: Pick<DesignStore, 'get'>;
}

/** The request body after schema validation (shapes checked, content not yet): what a design may fix, and the rest. */
export interface GenerateQrInput extends DesignOptions {
  content: unknown;
  type: QrType;
  outputFormat: OutputFormat;
  eci?: boolean | undefined;
  /** A saved design of the caller's account: its fields apply unless the request sets them. */
  design?: string | undefined;
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

/** True when the request asks for anything only the branded path draws. */
export function isBranded(input: GenerateQrInput): boolean {
  return (
    input.moduleShape !== undefined ||
    input.finderShape !== undefined ||
    input.finderColor !== undefined ||
    input.logo !== undefined ||
    input.frame !== undefined
  );
}

/** The design in canonical form, every colour pair held to the contrast rule, the logo read from the caller's own account. */
export async function brandingOf(
  deps: Pick<GenerateQrDeps, 'logos'>,
  accountId: string,
  input: GenerateQrInput,
  darkColor: string,
  lightColor: string,
): Promise<Branding> {
  const finderColor = input.finderColor === undefined ? darkColor : canonicalColour(input.finderColor);
  if (input.outputFormat === 'eps') {
    for (const [field, value] of [
      ['finderColor', input.finderColor],
      ['frame.color', input.frame?.color],
    ] as const) {
      if (value !== undefined && !canonicalColour(value).endsWith('ff')) throw invalidField(field, 'eps has no transparency: give #RRGGBB');
    }
  }
  assertScannableColours(finderColor, lightColor, 'finderColor', 'lightColor');
  let frame: Branding['frame'];
  if (input.frame) {
    frame = { text: input.frame.text, color: input.frame.color === undefined ? darkColor : canonicalColour(input.frame.color) };
    assertContrast(frame.color, lightColor, 'frame.color', 'lightColor'); // the caption is drawn in lightColor on the band
  }
  let logo: Branding['logo'];
  if (input.logo) {
    const stored = await deps.logos.get(accountId, input.logo.id);
    if (!stored)
      throw new ApiError('invalid_request', 'logo.id: no logo with this id in your account', {
        fields: [{ field: 'logo.id', detail: 'no logo with this id in your account' }],
      });
    logo = { id: input.logo.id, digest: stored.digest, png: stored.png, scale: input.logo.scale ?? LOGO_SCALE_LIMITS.default };
  }
  return {
    moduleShape: input.moduleShape ?? 'square',
    finderShape: input.finderShape ?? 'square',
    finderColor,
    logo,
    frame,
    errorCorrectionFixed: input.errorCorrection !== undefined,
  };
}

/** A colour field as the renderer takes it: canonical hex, and for pdf and eps a cmyk() ink with its hex equivalent. */
function inkOf(value: string | undefined, fallback: string, field: string, format: OutputFormat): { hex: string; ink?: Cmyk } {
  if (value === undefined) return { hex: canonicalColour(fallback) };
  const ink = parseCmyk(value, field);
  if (ink === undefined) {
    const hex = canonicalColour(value);
    // PostScript has no transparency: an alpha colour would be drawn opaque.
    if (format === 'eps' && !hex.endsWith('ff')) throw invalidField(field, 'eps has no transparency: give #RRGGBB (or cmyk())');
    return { hex };
  }
  if (!isPrintFormat(format)) throw invalidField(field, `cmyk() colours are written only in pdf and eps; give #RRGGBB for ${format}`);
  return { hex: cmykToHex(ink), ink };
}

/** sizeMm and dpi as the spec holds them: a raster's pixels from them, a vector's physical side; refusals name the field. */
function printOf(input: GenerateQrInput): Pick<RenderSpec, 'size' | 'sizeMm' | 'dpi'> {
  const { sizeMm, dpi } = input;
  if (sizeMm !== undefined && input.size !== undefined) throw invalidField('sizeMm', 'give sizeMm (physical) or size (pixels), not both');
  if (!isRasterFormat(input.outputFormat)) {
    if (dpi !== undefined) throw invalidField('dpi', `dpi applies to png and webp; ${input.outputFormat} is drawn as vectors at sizeMm`);
    return { size: input.size ?? SIZE_LIMITS.default, ...(sizeMm === undefined ? {} : { sizeMm }) };
  }
  if (sizeMm === undefined) return { size: input.size ?? SIZE_LIMITS.default, ...(dpi === undefined ? {} : { dpi }) };
  const resolution = dpi ?? DPI_LIMITS.default;
  const size = pixelsFor(sizeMm, resolution);
  if (size > SIZE_LIMITS.max || size < SIZE_LIMITS.min) {
    const bound = size > SIZE_LIMITS.max ? 'maximumSizeMm' : 'minimumSizeMm';
    const limitMm =
      size > SIZE_LIMITS.max
        ? Math.floor((SIZE_LIMITS.max / resolution) * MM_PER_INCH * 10) / 10
        : Math.ceil((SIZE_LIMITS.min / resolution) * MM_PER_INCH * 10) / 10;
    const detail = `${sizeMm} mm at ${resolution} dpi is ${size} px; images are ${SIZE_LIMITS.min}–${SIZE_LIMITS.max} px, so at ${resolution} dpi sizeMm is ${bound === 'maximumSizeMm' ? 'at most' : 'at least'} ${limitMm} (or lower the dpi)`;
    throw new ApiError('invalid_request', `sizeMm: ${detail}`, { fields: [{ field: 'sizeMm', detail }], extensions: { [bound]: limitMm } });
  }
  return { size, sizeMm, dpi: resolution };
}

/** The plain render spec a request asks for (colours held to contrast, print fields checked); callers add the branding when isBranded. */
export function renderSpecOf(input: GenerateQrInput, payload: string): RenderSpec {
  const dark = inkOf(input.darkColor, DEFAULT_DARK, 'darkColor', input.outputFormat);
  const light = inkOf(input.lightColor, DEFAULT_LIGHT, 'lightColor', input.outputFormat);
  const darkColor = dark.hex;
  const lightColor = light.hex;
  assertScannableColours(darkColor, lightColor);
  const { size, sizeMm, dpi } = printOf(input);
  // Optional parts spread last: a spread before other properties puts V8 on a slow path (microseconds a request).
  return {
    payload,
    format: input.outputFormat,
    size,
    margin: input.margin ?? MARGIN_LIMITS.default,
    // A type whose standard prescribes a level (EPC069-12: M) gets that level, whatever was asked.
    errorCorrection: contentEncoderFor(input.type).requiredErrorCorrection ?? input.errorCorrection ?? 'M',
    darkColor,
    lightColor,
    ...(input.eci ? { eci: true } : {}),
    ...(sizeMm === undefined ? {} : { sizeMm }),
    ...(dpi === undefined ? {} : { dpi }),
    ...(dark.ink || light.ink ? { inks: { ...(dark.ink ? { dark: dark.ink } : {}), ...(light.ink ? { light: light.ink } : {}) } } : {}),
  };
}

/** One distinct code per (type, payload): the unit the monthly QR quota counts. */
export function qrFingerprint(type: QrType, payload: string): string {
  return createHash('sha256').update(type).update('\u0000').update(payload).digest('hex');
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
  /**
   * Where the caller keeps this input's image for next time, for an input it hands in again and again unchanged (a
   * signed URL's remembered body): filled on the first call, read on the next ones.
   */
  memo?: ImageMemo | undefined;
}

/** What a request's image is from its fields alone: the payload, the render spec, the code's fingerprint and the ETag. */
export interface ImageOf {
  payload: string;
  spec: RenderSpec;
  fingerprint: string;
  etag: string;
}

/**
 * A caller's slot for the image of an input that depends on nothing stored (no design, no logo or other branding): a
 * revalidated signed URL skips the encoding, the colour checks and the hashing (about 6 µs of its ~60).
 */
export interface ImageMemo {
  image?: ImageOf | undefined;
}

async function imageOf(deps: GenerateQrDeps, accountId: string, input: GenerateQrInput): Promise<ImageOf> {
  const payload = encodeContent(input.type, input.content);
  let spec = renderSpecOf(input, payload);
  if (isBranded(input)) spec = { ...spec, branding: await brandingOf(deps, accountId, input, spec.darkColor, spec.lightColor) };
  const fingerprint = qrFingerprint(input.type, payload);
  return { payload, spec, fingerprint, etag: renderTag(fingerprint, spec) };
}

/** Without conditions the answer is always an image; with If-None-Match it may be "not modified". */
export async function generateQr(deps: GenerateQrDeps, caller: Caller, input: GenerateQrInput): Promise<GeneratedQr>;
export async function generateQr(deps: GenerateQrDeps, caller: Caller, input: GenerateQrInput, conditions: Conditions): Promise<GeneratedQr | NotModifiedQr>;
export async function generateQr(
  deps: GenerateQrDeps,
  caller: Caller,
  input: GenerateQrInput,
  conditions: Conditions = {},
): Promise<GeneratedQr | NotModifiedQr> {
  // A design is read from the store on every request (it may have been edited): only inputs without one are memoised.
  const memo = input.design === undefined && !isBranded(input) ? conditions.memo : undefined;
  if (input.design !== undefined) input = await applyDesign(deps, caller.accountId, input);
  const plan = deps.plans.get(caller.plan);
  if (!planAllowsFormat(plan, input.outputFormat)) {
    const upgrade = deps.plans.cheapestWithFormat(input.outputFormat);
    throw new ApiError(
      'plan_upgrade_required',
      `${input.outputFormat} output is not included in the ${plan.name} plan${upgrade ? `; it is available from the ${upgrade.name} plan` : ''}`,
      {
        extensions: { plan: plan.id, ...(upgrade ? { requiredPlan: upgrade.id } : {}) },
      },
    );
  }
  let image = memo?.image;
  if (!image) {
    image = await imageOf(deps, caller.accountId, input);
    if (memo) memo.image = image;
  }
  const { payload, spec, fingerprint, etag } = image;
  const notModified = matchesIfNoneMatch(conditions.ifNoneMatch, etag);
  if (notModified && !conditions.meterNotModified) return { notModified: true, etag };
  // Before metering: an image that cannot be drawn is refused without counting, and without a matrix being built.
  deps.renderer.assertDrawable(spec);

  const now = deps.clock();
  const outcome = await deps.meter.reserve({
    accountId: caller.accountId,
    period: periodOf(now),
    qr: { fingerprint, type: input.type, payload },
    limits: { requests: plan.requestsPerMonth, qrs: plan.qrsPerMonth },
    at: now,
    // An unlimited burst keeps no window at all: no counter work for a dimension that is never refused.
    ...(plan.burstPerSecond === null ? {} : { burst: { accountId: caller.accountId, key: burstKeyOf(caller), perSecond: plan.burstPerSecond } }),
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
        ? `the ${plan.name} plan allows ${plan.requestsPerMonth} requests a month; the quota resets at ${quota.resetAt.toISOString()}`
        : `the ${plan.name} plan allows ${plan.qrsPerMonth} distinct QR codes a month; ` +
          `codes already generated this month can still be regenerated, and the quota resets at ${quota.resetAt.toISOString()}`) +
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
