// What to render for a request: the render spec, its branding, the code's fingerprint and ETag, built from the fields.
import { createHash } from 'node:crypto';
import { contentEncoderFor, encodeContent, type QrType } from '../domain/content/index.js';
import { ApiError, invalidField } from '../domain/errors.js';
import {
  cmykToHex,
  DPI_LIMITS,
  isPrintFormat,
  isRasterFormat,
  MM_PER_INCH,
  parseCmyk,
  pixelsFor,
  type Cmyk,
} from '../domain/print.js';
import type { OutputFormat } from '../domain/plan-catalogue.js';
import { LOGO_SCALE_LIMITS, type Branding } from '../domain/branding.js';
import type { LogoStore } from '../domain/ports/logo-store.js';
import type { DesignOptions } from '../domain/design.js';
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
import { renderTag } from '../domain/render-key.js';

/** Where a request's named logo is read from (a cached store: a branded PNG with a known logo must cost little). */
export interface RenderSpecDeps {
  logos: Pick<LogoStore, 'get'>;
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

/**
 * The design in canonical form, every colour pair held to the contrast rule, the logo read from the caller's own
 * account.
 */
export async function brandingOf(
  deps: RenderSpecDeps,
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
      if (value !== undefined && !canonicalColour(value).endsWith('ff'))
        throw invalidField(field, 'eps has no transparency: give #RRGGBB');
    }
  }
  assertScannableColours(finderColor, lightColor, 'finderColor', 'lightColor');
  let frame: Branding['frame'];
  if (input.frame) {
    frame = {
      text: input.frame.text,
      color: input.frame.color === undefined ? darkColor : canonicalColour(input.frame.color),
    };
    // the caption is drawn in lightColor on the band
    assertContrast(frame.color, lightColor, 'frame.color', 'lightColor');
  }
  let logo: Branding['logo'];
  if (input.logo) {
    const stored = await deps.logos.get(accountId, input.logo.id);
    if (!stored)
      throw new ApiError('invalid_request', 'logo.id: no logo with this id in your account', {
        fields: [{ field: 'logo.id', detail: 'no logo with this id in your account' }],
      });
    logo = {
      id: input.logo.id,
      digest: stored.digest,
      png: stored.png,
      scale: input.logo.scale ?? LOGO_SCALE_LIMITS.default,
    };
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
function inkOf(
  value: string | undefined,
  fallback: string,
  field: string,
  format: OutputFormat,
): { hex: string; ink?: Cmyk } {
  if (value === undefined) return { hex: canonicalColour(fallback) };
  const ink = parseCmyk(value, field);
  if (ink === undefined) {
    const hex = canonicalColour(value);
    // PostScript has no transparency: an alpha colour would be drawn opaque.
    if (format === 'eps' && !hex.endsWith('ff'))
      throw invalidField(field, 'eps has no transparency: give #RRGGBB (or cmyk())');
    return { hex };
  }
  if (!isPrintFormat(format))
    throw invalidField(field, `cmyk() colours are written only in pdf and eps; give #RRGGBB for ${format}`);
  return { hex: cmykToHex(ink), ink };
}

/**
 * sizeMm and dpi as the spec holds them: a raster's pixels from them, a vector's physical side; refusals name the
 * field.
 */
function printOf(input: GenerateQrInput): Pick<RenderSpec, 'size' | 'sizeMm' | 'dpi'> {
  const { sizeMm, dpi } = input;
  if (sizeMm !== undefined && input.size !== undefined)
    throw invalidField('sizeMm', 'give sizeMm (physical) or size (pixels), not both');
  if (!isRasterFormat(input.outputFormat)) {
    if (dpi !== undefined)
      throw invalidField('dpi', `dpi applies to png and webp; ${input.outputFormat} is drawn as vectors at sizeMm`);
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
    const detail =
      `${sizeMm} mm at ${resolution} dpi is ${size} px; images are ${SIZE_LIMITS.min}–${SIZE_LIMITS.max} px, so ` +
      `at ${resolution} dpi sizeMm is ${bound === 'maximumSizeMm' ? 'at most' : 'at least'} ${limitMm} (or lower ` +
      `the dpi)`;
    throw new ApiError('invalid_request', `sizeMm: ${detail}`, {
      fields: [{ field: 'sizeMm', detail }],
      extensions: { [bound]: limitMm },
    });
  }
  return { size, sizeMm, dpi: resolution };
}

/**
 * The plain render spec a request asks for (colours held to contrast, print fields checked); callers add the branding
 * when isBranded.
 */
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
    ...(dark.ink || light.ink
      ? { inks: { ...(dark.ink ? { dark: dark.ink } : {}), ...(light.ink ? { light: light.ink } : {}) } }
      : {}),
  };
}

/** One distinct code per (type, payload): the unit the monthly QR quota counts. */
export function qrFingerprint(type: QrType, payload: string): string {
  return createHash('sha256').update(type).update('\u0000').update(payload).digest('hex');
}

/** The render spec with the branding when the request asks for it (the logo read from the caller's own account). */
export async function fullSpecOf(
  deps: RenderSpecDeps,
  accountId: string,
  input: GenerateQrInput,
  payload: string,
): Promise<RenderSpec> {
  const spec = renderSpecOf(input, payload);
  if (!isBranded(input)) return spec;
  return { ...spec, branding: await brandingOf(deps, accountId, input, spec.darkColor, spec.lightColor) };
}

/**
 * What a request's image is from its fields alone: the payload, the render spec, the code's fingerprint and the ETag.
 */
export interface RequestedImage {
  type: QrType;
  payload: string;
  spec: RenderSpec;
  fingerprint: string;
  etag: string;
}

/** The image a request (its design already applied) asks for; refusals name the field. */
export async function requestedImage(
  deps: RenderSpecDeps,
  accountId: string,
  input: GenerateQrInput,
): Promise<RequestedImage> {
  const payload = encodeContent(input.type, input.content);
  const spec = await fullSpecOf(deps, accountId, input, payload);
  const fingerprint = qrFingerprint(input.type, payload);
  return { type: input.type, payload, spec, fingerprint, etag: renderTag(fingerprint, spec) };
}

/**
 * True when the image depends on the request's fields alone (no design, no logo or other branding read from a store).
 */
export function dependsOnFieldsAlone(input: GenerateQrInput): boolean {
  return input.design === undefined && !isBranded(input);
}
