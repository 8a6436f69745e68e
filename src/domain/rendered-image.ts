// An image as the renderer drew it: its bytes, and the QR symbol they carry (answered as QR-Version /
// QR-Error-Correction).
import type { ErrorCorrectionLevel } from './render-options.js';

/**
 * The symbol drawn: its version (1–40) and the level it was drawn at, which a branded design may raise above the asked
 * one.
 */
export interface DrawnSymbol {
  version: number;
  errorCorrection: ErrorCorrectionLevel;
}

export interface RenderedImage {
  bytes: Uint8Array;
  symbol: DrawnSymbol;
}
