// The error correction level a logo is drawn at, and the codeword rule that says whether one scan verdict may stand for
// every payload of a design.
import { clearedSide, logoFits } from '../domain/branding.js';
import { ERROR_CORRECTION_LEVELS, type ErrorCorrectionLevel } from '../domain/render-options.js';
import { codewordsTouchedPerBlock, correctableErrorsPerBlock, type ModuleSquare } from './qr-codeword-map.js';

/**
 * Of what each Reed–Solomon block corrects, the share the logo must leave unused (and at least SPARE_MIN codewords)
 * for a design to share one verdict between payloads: room for a misread module elsewhere (a rounded corner, a dot's
 * edge, a scuffed print) that one payload's data could put where another's does not. A fifth: the evidence runs
 * (test/measure/shared-verdict.ts) read every image let out at the rule's edge, and a quarter would push common
 * logo designs up a level for no reading they need (docs/decisions/shared-scan-verdict.md).
 */
const SPARE_SHARE = 0.2;
const SPARE_MIN = 2;

/**
 * Whether the logo's cleared square, read wrong in every codeword it touches, still leaves each block the spare
 * correction above. It depends on the version, the level and the square only: codeword placement and the block
 * interleave are fixed by the version and level (qr-codeword-map.ts), never by the data or the mask, so it holds
 * for every payload of the class or for none. A design without a logo touches nothing. `codewordOf` is the
 * version's codewordOfModules, when the caller keeps it.
 */
export function logoLeavesSpare(
  matrixSize: number,
  level: ErrorCorrectionLevel,
  cleared: ModuleSquare,
  codewordOf?: Int16Array,
): boolean {
  if (cleared.side === 0) return true;
  const version = (matrixSize - 17) / 4;
  const correctable = correctableErrorsPerBlock(version, level);
  const spare = Math.max(SPARE_MIN, Math.ceil(correctable * SPARE_SHARE));
  return Math.max(...codewordsTouchedPerBlock(version, level, cleared, codewordOf)) <= correctable - spare;
}

/** The cleared square behind a logo of `scale`, centred, as design-layout.ts draws it. */
export function clearedSquare(matrixSize: number, scale: number): ModuleSquare {
  const side = clearedSide(matrixSize, scale);
  return { start: (matrixSize - side) / 2, side };
}

/**
 * The levels a logo may be drawn at, lowest first: the requested one and those above it, or only it when the caller
 * fixed it.
 */
export function levelsForLogo(requested: ErrorCorrectionLevel, fixed: boolean): ErrorCorrectionLevel[] {
  return fixed ? [requested] : ERROR_CORRECTION_LEVELS.slice(ERROR_CORRECTION_LEVELS.indexOf(requested));
}

/**
 * The level a logo is drawn at and its symbol; or the level the payload outgrew first; or, fitting at none, the last
 * level's symbol side.
 */
export type LogoLevel<S> =
  { level: ErrorCorrectionLevel; symbol: S } | { tooLong: ErrorCorrectionLevel } | { fitsNone: number };

/**
 * The level a logo is drawn at when the caller left the level open, from the levels to try (lowest first, at least
 * one) and the symbol each would draw (undefined: the payload does not fit at that level). The lowest level at which
 * the logo fits and leaves every block its spare correction (logoLeavesSpare): the design can then share a verdict,
 * and the logo never takes a block's correction nearly whole (a URL at M with a logo at 0.2 touches 12 of the 13
 * codewords its one block corrects). Else, as before, the lowest level at which it fits. `leavesSpare` is the rule,
 * or a caller's memo of it (DesignCaches.logoLeavesSpare: the rule counts the codewords under the logo's square).
 */
export function levelForLogo<S extends { size: number }>(
  levels: readonly ErrorCorrectionLevel[],
  scale: number,
  symbolAt: (level: ErrorCorrectionLevel) => S | undefined,
  leavesSpare: (matrixSize: number, level: ErrorCorrectionLevel) => boolean = (size, level) =>
    logoLeavesSpare(size, level, clearedSquare(size, scale)),
): LogoLevel<S> {
  let firstFit: { level: ErrorCorrectionLevel; symbol: S } | undefined;
  let lastSize = 0;
  for (const level of levels) {
    const symbol = symbolAt(level);
    if (!symbol) return firstFit ?? { tooLong: level };
    lastSize = symbol.size;
    if (!logoFits(symbol.size, scale, level)) continue;
    if (leavesSpare(symbol.size, level)) return { level, symbol };
    firstFit ??= { level, symbol };
  }
  return firstFit ?? { fitsNone: lastSize };
}
