// The QR module matrix for a payload: our segment planner and codewords, drawn and masked by the `qr` package.
import { BYTE_CAPACITY } from '../domain/qr-capacity.js';
import type { DrawnSymbol } from '../domain/rendered-image.js';
import type { ErrorCorrectionLevel } from '../domain/render-options.js';
import { symbolCodewords, type SymbolContent } from './qr-codewords.js';
import { chooseSymbol, type EncodingOptions } from './qr-encoding.js';
import { drawSymbolModules, type EccName } from './qr-internals.js';

export interface QrMatrix {
  /** Modules per side, without quiet zone. */
  size: number;
  /** Row-major, one byte per module: 1 dark, 0 light. */
  modules: Uint8Array;
}

/**
 * BYTE_CAPACITY is the longest arbitrary UTF-8 that always fits; text the planner packs tighter (digits, Kanji,
 * Latin-1) may be longer.
 */
export { BYTE_CAPACITY };

export const ECC_NAMES: Record<ErrorCorrectionLevel, EccName> = {
  L: 'low',
  M: 'medium',
  Q: 'quartile',
  H: 'high',
};

export class PayloadTooLongError extends Error {
  constructor(readonly limit: number) {
    super(`payload exceeds QR capacity (${limit} bytes)`);
  }
}

/** A symbol chosen (version, segments) but not yet drawn: its side, and its modules on demand. */
export interface PlannedSymbol {
  size: number;
  draw(): QrMatrix;
}

/**
 * The symbol `payload` needs at `errorCorrection` (undefined: too long), without drawing it: drawing is
 * most of a matrix's cost, so a caller choosing between levels draws only the one it keeps.
 */
export function plannedSymbol(
  payload: string,
  errorCorrection: ErrorCorrectionLevel,
  options: EncodingOptions = { eci: false },
): PlannedSymbol | undefined {
  const content = chooseSymbol(payload, ECC_NAMES[errorCorrection], options);
  return content && { size: 17 + 4 * content.version, draw: () => drawSymbol(content) };
}

/**
 * `qr` encodes one segment only (one mode, UTF-8 bytes), so the segments and codewords are ours
 * (bench/render-path.ts measures the cost); placement, the mask choice by penalty score and the format
 * and version bits stay `qr`'s drawSymbol, reached through qr-internals.ts (not public API: pinned there, and
 * test/unit/qr-matrix.test.ts checks the whole against `qr`'s own encoder).
 */
export function buildMatrix(
  payload: string,
  errorCorrection: ErrorCorrectionLevel,
  options: EncodingOptions = { eci: false },
): QrMatrix {
  const content = chooseSymbol(payload, ECC_NAMES[errorCorrection], options);
  if (!content) throw new PayloadTooLongError(BYTE_CAPACITY[errorCorrection]);
  return drawSymbol(content);
}

/** The version and level of a drawn matrix (a side of 17 + 4 × version modules). */
export function drawnSymbol(matrix: QrMatrix, errorCorrection: ErrorCorrectionLevel): DrawnSymbol {
  return { version: (matrix.size - 17) / 4, errorCorrection };
}

/** The modules of a chosen symbol. */
export function drawSymbol(content: SymbolContent): QrMatrix {
  return drawSymbolModules(content.version, content.ecc, symbolCodewords(content));
}
