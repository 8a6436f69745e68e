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

/** The design's fields, then every field the request sets: a request field always wins, whole (a request's `logo` replaces the design's). */
export function withDesign<T extends object>(design: DesignOptions, request: T): T {
  const merged: Record<string, unknown> = {};
  for (const field of DESIGN_FIELDS) if (design[field] !== undefined) merged[field] = design[field];
  for (const [field, value] of Object.entries(request)) if (value !== undefined) merged[field] = value;
  return merged as T;
}
