// Branding rules: module and finder shapes, the logo's covered area and the error correction it needs, caption limits.
import type { ErrorCorrectionLevel } from './render-options.js';

export const MODULE_SHAPES = ['square', 'rounded', 'dots'] as const;
export type ModuleShape = (typeof MODULE_SHAPES)[number];
export const FINDER_SHAPES = ['square', 'rounded', 'circle'] as const;
export type FinderShape = (typeof FINDER_SHAPES)[number];

export const LOGO_SCALE_LIMITS = { min: 0.05, max: 0.4, default: 0.2 } as const;
export const FRAME_TEXT_MAX = 24;
/** Printable ASCII and Latin-1: the characters the bundled caption font carries. Linear: one character class. */
export const FRAME_TEXT = /^[\x20-\x7e\u00a0-\u00ff]+$/;

/** The logo as the renderer needs it: the stored, re-encoded PNG and the digest that names it in cache keys. */
export interface LogoArt {
  /**
   * The logo's id in its account: a stored batch item keeps this, not the bytes, and is given the bytes again to
   * render.
   */
  id: string;
  digest: string;
  /** Absent only in a batch item as stored; the batch renderer reads it from the logo store by `id`. */
  png?: Uint8Array | undefined;
  scale: number;
}

/** The logo's bytes; a spec reaches the renderer only with them (a stored batch item is given them back first). */
export function logoPng(logo: LogoArt): Uint8Array {
  if (!logo.png) throw new Error(`logo ${logo.id} reached the renderer without its bytes`);
  return logo.png;
}

/** A branded design, canonical (colours as #rrggbbaa). Absent from a spec: the plain fast path. */
export interface Branding {
  moduleShape: ModuleShape;
  finderShape: FinderShape;
  finderColor: string;
  logo?: LogoArt | undefined;
  frame?: { text: string; color: string } | undefined;
  /** The caller named errorCorrection: the renderer may not raise it for the logo, and refuses instead. */
  errorCorrectionFixed: boolean;
}

/** Codewords (data + error correction) per QR version 1..40, ISO/IEC 18004 table 1. */
const TOTAL_CODEWORDS = [
  26, 44, 70, 100, 134, 172, 196, 242, 292, 346, 404, 466, 532, 581, 655, 733, 815, 901, 991, 1085, 1156, 1258, 1364,
  1474, 1588, 1706, 1828, 1921, 2051, 2185, 2323, 2465, 2611, 2761, 2876, 3034, 3196, 3362, 3532, 3706,
];

/** Share of codewords each level restores; a logo may use only part of it, so a scuffed print still reads. */
const RECOVERY: Record<ErrorCorrectionLevel, number> = { L: 0.07, M: 0.15, Q: 0.25, H: 0.3 };
const RECOVERY_BUDGET_SHARE = 0.8;
/** Cleared modules damage more codewords than their count / 8: a codeword straddling the edge is lost too. */
const EDGE_FACTOR = 1.25;

/**
 * Modules per side of the cleared square behind a logo: the logo plus half a module each side, odd so it centres on a
 * module.
 */
export function clearedSide(matrixSize: number, scale: number): number {
  const side = Math.ceil(scale * matrixSize + 1);
  return side % 2 === 1 ? side : side + 1;
}

/** Whether a logo of `scale` leaves enough error correction at `level` on a code of `matrixSize` modules. */
export function logoFits(matrixSize: number, scale: number, level: ErrorCorrectionLevel): boolean {
  const version = (matrixSize - 17) / 4;
  const codewords = TOTAL_CODEWORDS[version - 1] ?? TOTAL_CODEWORDS[0]!;
  const damaged = Math.ceil((clearedSide(matrixSize, scale) ** 2 / 8) * EDGE_FACTOR);
  return damaged <= codewords * RECOVERY[level] * RECOVERY_BUDGET_SHARE;
}

/** The largest logo scale (in steps of 0.01) that fits at `level`, or undefined when not even the smallest does. */
export function largestLogoScale(matrixSize: number, level: ErrorCorrectionLevel): number | undefined {
  let best: number | undefined;
  for (let hundredths = LOGO_SCALE_LIMITS.min * 100; hundredths <= LOGO_SCALE_LIMITS.max * 100; hundredths++) {
    if (logoFits(matrixSize, hundredths / 100, level)) best = hundredths / 100;
  }
  return best;
}

/** The canonical text of a design without the logo bytes: part of the render key and of the scan verdict's key. */
export function designKey(branding: Branding): string {
  const { logo, ...rest } = branding;
  return JSON.stringify({ ...rest, logo: logo ? { digest: logo.digest, scale: logo.scale } : null });
}
