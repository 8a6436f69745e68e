// Rendering options: defaults, colour parsing and the contrast rule that keeps codes scannable.
import type { Branding } from './branding.js';
import { ApiError } from './errors.js';
import type { OutputFormat } from './plan-catalogue.js';
import type { Cmyk } from './print.js';

export const ERROR_CORRECTION_LEVELS = ['L', 'M', 'Q', 'H'] as const;
export type ErrorCorrectionLevel = (typeof ERROR_CORRECTION_LEVELS)[number];

export const SIZE_LIMITS = { min: 64, max: 2048, default: 512 } as const;
/** Raster modules never get fewer pixels than this: at one pixel a module, zbar fails to read codes. */
export const MIN_MODULE_PIXELS = 2;
export const MARGIN_LIMITS = { min: 0, max: 16, default: 4 } as const;
export const DEFAULT_DARK = '#000000';
export const DEFAULT_LIGHT = '#ffffff';
/** WCAG contrast ratio below which phone cameras start failing to separate modules. */
export const MIN_CONTRAST_RATIO = 3;

/** Everything the renderer needs, canonical (lowercase #rrggbbaa colours), so equal requests compare equal. */
export interface RenderSpec {
  payload: string;
  format: OutputFormat;
  size: number;
  margin: number;
  errorCorrection: ErrorCorrectionLevel;
  darkColor: string;
  lightColor: string;
  /** Name UTF-8 with the ECI designator (26) when the payload is not plain ASCII. */
  eci?: boolean | undefined;
  /** Logo, shapes, frame: rendered by the branded path, which checks the image scans. Absent: the plain fast path. */
  branding?: Branding | undefined;
  /**
   * Physical side in millimetres: the page or bounding box of PDF and EPS, `width`/`height` in mm of SVG (rasters get
   * `size` from it).
   */
  sizeMm?: number | undefined;
  /** Raster resolution written in the file (PNG pHYs, WebP EXIF); `size` already holds the pixels it gives. */
  dpi?: number | undefined;
  /**
   * PDF and EPS: colours given as cmyk(), written as DeviceCMYK; `darkColor`/`lightColor` hold their RGB equivalents.
   */
  inks?: { dark?: Cmyk | undefined; light?: Cmyk | undefined } | undefined;
}

export interface Rgba {
  r: number;
  g: number;
  b: number;
  a: number;
}

export const HEX_COLOUR = /^#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?$/;

/** `#RRGGBB` or `#RRGGBBAA` → canonical lowercase `#rrggbbaa`. */
export function canonicalColour(hex: string): string {
  const lower = hex.toLowerCase();
  return lower.length === 7 ? `${lower}ff` : lower;
}

export function parseColour(canonical: string): Rgba {
  return {
    r: parseInt(canonical.slice(1, 3), 16),
    g: parseInt(canonical.slice(3, 5), 16),
    b: parseInt(canonical.slice(5, 7), 16),
    a: parseInt(canonical.slice(7, 9), 16),
  };
}

function relativeLuminance({ r, g, b }: Rgba): number {
  const channel = (v: number) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

/** Composites a colour over white, as a printed or on-screen code is most often seen. */
function overWhite(c: Rgba): Rgba {
  const alpha = c.a / 255;
  const mix = (v: number) => Math.round(v * alpha + 255 * (1 - alpha));
  return { r: mix(c.r), g: mix(c.g), b: mix(c.b), a: 255 };
}

export function contrastRatio(a: Rgba, b: Rgba): number {
  const la = relativeLuminance(overWhite(a));
  const lb = relativeLuminance(overWhite(b));
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

/**
 * Rejects colour pairs a scanner cannot read: too little contrast, or dark modules lighter than
 * the background (inverted codes are read by few scanners).
 */
export function assertScannableColours(
  darkColor: string,
  lightColor: string,
  darkField = 'darkColor',
  lightField = 'lightColor',
): void {
  assertContrast(darkColor, lightColor, darkField, lightField);
  if (relativeLuminance(overWhite(parseColour(darkColor))) > relativeLuminance(overWhite(parseColour(lightColor)))) {
    throw new ApiError(
      'invalid_request',
      `${darkField} must be darker than ${lightField}: most scanners cannot read inverted codes`,
      {
        fields: [{ field: darkField, detail: `must be darker than ${lightField}` }],
      },
    );
  }
}

/**
 * The contrast half of the rule alone: for pairs that need to be told apart but may be either way round (a caption on
 * its band).
 */
export function assertContrast(colour: string, other: string, field: string, otherField: string): void {
  const ratio = contrastRatio(parseColour(colour), parseColour(other));
  if (ratio < MIN_CONTRAST_RATIO) {
    throw new ApiError(
      'invalid_request',
      `${field} and ${otherField} contrast ${ratio.toFixed(2)}:1, below the ${MIN_CONTRAST_RATIO}:1 a scanner needs`,
      {
        fields: [{ field, detail: `contrast with ${otherField} must be at least ${MIN_CONTRAST_RATIO}:1` }],
      },
    );
  }
}
