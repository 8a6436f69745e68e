// Saved designs: a named set of rendering and branding options an account reuses across codes (`design: "des_…"`).
import { randomBytes } from 'node:crypto';
import type { FinderShape, ModuleShape } from './branding.js';
import type { ErrorCorrectionLevel } from './render-options.js';

export const DESIGN_ID = /^des_[A-Za-z0-9_-]{20}$/;
export const DESIGN_NAME_MAX = 64;

export function newDesignId(): string {
  return `des_${randomBytes(15).toString('base64url')}`;
}

/** The fields a design may fix; a request's own fields override them one by one. */
export interface DesignOptions {
  size?: number | undefined;
  /**
   * Physical side (docs/print.md); a request's own `size` replaces it, and its `sizeMm` replaces the design's `size`.
   */
  sizeMm?: number | undefined;
  /** Applies to png and webp requests only: a pdf, eps or svg made from the design has no pixels to give it. */
  dpi?: number | undefined;
  margin?: number | undefined;
  errorCorrection?: ErrorCorrectionLevel | undefined;
  darkColor?: string | undefined;
  lightColor?: string | undefined;
  moduleShape?: ModuleShape | undefined;
  finderShape?: FinderShape | undefined;
  finderColor?: string | undefined;
  logo?: { id: string; scale?: number | undefined } | undefined;
  frame?: { text: string; color?: string | undefined } | undefined;
}

export const DESIGN_FIELDS = [
  'size',
  'sizeMm',
  'dpi',
  'margin',
  'errorCorrection',
  'darkColor',
  'lightColor',
  'moduleShape',
  'finderShape',
  'finderColor',
  'logo',
  'frame',
] as const satisfies ReadonlyArray<keyof DesignOptions>;

/**
 * The design's fields, then every field the request sets: a request field always wins, whole (a request's `logo`
 * replaces the design's).
 */
export function withDesign<T extends object>(design: DesignOptions, request: T): T {
  const merged: Record<string, unknown> = {};
  const asked = request as { size?: unknown; sizeMm?: unknown; outputFormat?: unknown };
  // The side is one choice, in pixels or in millimetres: the request's replaces the design's, whichever unit each used.
  const skip = new Set<string>();
  if (asked.size !== undefined) skip.add('sizeMm').add('dpi');
  if (asked.sizeMm !== undefined) skip.add('size');
  if (asked.outputFormat !== 'png' && asked.outputFormat !== 'webp') skip.add('dpi');
  for (const field of DESIGN_FIELDS) if (design[field] !== undefined && !skip.has(field)) merged[field] = design[field];
  for (const [field, value] of Object.entries(request)) if (value !== undefined) merged[field] = value;
  return merged as T;
}
