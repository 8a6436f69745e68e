// Print rules: physical size (sizeMm, dpi), CMYK inks, and the smallest module a printer can be trusted with.
import { invalidField } from './errors.js';
import type { OutputFormat } from './plan-catalogue.js';

export const SIZE_MM_LIMITS = { min: 10, max: 1000 } as const;
export const DPI_LIMITS = { min: 72, max: 2400, default: 300 } as const;
/**
 * The smallest printed module by default (PRINT_MIN_MODULE_MM): smaller, phone cameras and cheap printers start losing
 * modules.
 */
export const DEFAULT_MIN_MODULE_MM = 0.3;
export const MM_PER_INCH = 25.4;
export const PT_PER_INCH = 72;

/** Formats drawn as vectors at a physical size (the page or bounding box is sizeMm); the others are pixels. */
export const VECTOR_PRINT_FORMATS = ['pdf', 'eps'] as const satisfies readonly OutputFormat[];

export function isPrintFormat(format: OutputFormat): format is 'pdf' | 'eps' {
  return format === 'pdf' || format === 'eps';
}

export function isRasterFormat(format: OutputFormat): format is 'png' | 'webp' {
  return format === 'png' || format === 'webp';
}

/** A CMYK ink, each part a percentage 0–100. */
export type Cmyk = readonly [c: number, m: number, y: number, k: number];

/** `cmyk(c,m,y,k)` in percent, spaces allowed after commas; linear (bounded repeats, no nesting). */
export const CMYK_COLOUR = /^cmyk\( ?\d{1,3}(?:\.\d{1,3})? ?(?:, ?\d{1,3}(?:\.\d{1,3})? ?){3}\)$/;

/**
 * The four percentages, or undefined when the text is not a cmyk() colour (any part over 100 is an error of its field).
 */
export function parseCmyk(text: string, field: string): Cmyk | undefined {
  if (!CMYK_COLOUR.test(text)) return undefined;
  const parts = text.slice(5, -1).split(',').map(Number);
  if (parts.some((part) => part > 100)) throw invalidField(field, 'each cmyk() part is a percentage from 0 to 100');
  return parts as unknown as Cmyk;
}

/**
 * The naive device conversion (R = 255 (1 − C)(1 − K), and so on): what the contrast rule is applied to. A press's
 * ICC profile would give other numbers; the rule keeps a margin (3:1) for that.
 */
export function cmykToHex([c, m, y, k]: Cmyk): string {
  const channel = (part: number) =>
    Math.round(255 * (1 - part / 100) * (1 - k / 100))
      .toString(16)
      .padStart(2, '0');
  return `#${channel(c)}${channel(m)}${channel(y)}ff`;
}

/** Pixels per side of a raster printed at `sizeMm` and `dpi`. */
export function pixelsFor(sizeMm: number, dpi: number): number {
  return Math.round((sizeMm / MM_PER_INCH) * dpi);
}

export function pointsFor(sizeMm: number): number {
  return (sizeMm / MM_PER_INCH) * PT_PER_INCH;
}

/**
 * The smallest side (mm, rounded up to a tenth) at which each of `totalModules` (code and quiet zone) prints at least
 * `minModuleMm` wide, and for a raster at least `minModulePixels` whole pixels at `dpi`.
 */
export function smallestSizeMm(
  totalModules: number,
  minModuleMm: number,
  raster?: { dpi: number; minModulePixels: number },
): number {
  let mm = totalModules * minModuleMm;
  if (raster) mm = Math.max(mm, ((totalModules * raster.minModulePixels + 0.5) / raster.dpi) * MM_PER_INCH);
  const tenths = Math.ceil(mm * 10 - 1e-9) / 10;
  return Math.max(SIZE_MM_LIMITS.min, tenths);
}

/** Whether the modules of a code printed at `sizeMm` are wide enough (the rule smallestSizeMm inverts). */
export function modulesPrintable(
  sizeMm: number,
  totalModules: number,
  minModuleMm: number,
  raster?: { dpi: number; minModulePixels: number },
): boolean {
  if (sizeMm / totalModules < minModuleMm - 1e-9) return false;
  return raster === undefined || Math.floor(pixelsFor(sizeMm, raster.dpi) / totalModules) >= raster.minModulePixels;
}
