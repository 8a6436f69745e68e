// The one door to `qr`'s private internals (its `_`-prefixed exports and `_tests`), in our names and shapes: the only
// file that may import them, so an upgrade of `qr` that changes one fails in test/unit/qr-internals.test.ts.
import { _BYTES, _ECC_BLOCKS, _GF256, _tests, _WORDS_PER_BLOCK, type ErrorCorrection } from 'qr';

/** An error correction level as `qr` names it (`low`, `medium`, `quartile`, `high`). */
export type EccName = ErrorCorrection;

/** A drawn symbol: modules per side (no quiet zone), and one byte a module, row-major, 1 dark and 0 light. */
export interface SymbolModules {
  size: number;
  modules: Uint8Array;
}

/** Codewords of a symbol, data and error correction together (ISO/IEC 18004 table 1). */
export function totalCodewords(version: number): number {
  return _BYTES[version - 1]!;
}

/** Reed–Solomon blocks of a symbol at a level (table 9). */
function eccBlockCount(version: number, ecc: EccName): number {
  return _ECC_BLOCKS[ecc][version - 1]!;
}

/** Error correction codewords in each of those blocks (table 9). */
function eccCodewordsPerBlock(version: number, ecc: EccName): number {
  return _WORDS_PER_BLOCK[ecc][version - 1]!;
}

/**
 * How a symbol's codewords split into Reed–Solomon blocks (§7.6): the first `shortBlocks` hold one data codeword fewer.
 */
export interface BlockShape {
  total: number;
  blockCount: number;
  eccPerBlock: number;
  shortBlocks: number;
  /** Data codewords of a short block. */
  shortLength: number;
}

export function blockShape(version: number, ecc: EccName): BlockShape {
  const total = totalCodewords(version);
  const eccPerBlock = eccCodewordsPerBlock(version, ecc);
  const blockCount = eccBlockCount(version, ecc);
  return {
    total,
    blockCount,
    eccPerBlock,
    shortBlocks: blockCount - (total % blockCount),
    shortLength: Math.floor(total / blockCount) - eccPerBlock,
  };
}

/**
 * GF(256) with the QR primitive polynomial 0x11d: `exp[i]` is 2^i, `log[exp[i]]` is i. `exp` runs on past 254
 * (510 entries), so the sum of two logs indexes it without a modulo. Read only.
 */
export const gf256: { readonly exp: Uint8Array; readonly log: Uint8Array } = _GF256;

/**
 * The error correction codewords of one block: the remainder of data(x)·x^n divided by the generator polynomial,
 * given as its n coefficients after the leading x^n, highest degree first.
 */
export function reedSolomonRemainder(data: Uint8Array, generator: Uint8Array): Uint8Array {
  return _tests.rsEcc(data, generator);
}

/** `qr` reuses the matrix it returns on its next draw: read it out at once. */
function readOut(symbol: { size: number; words: number; v: Uint32Array }): SymbolModules {
  const { size, words, v } = symbol;
  const modules = new Uint8Array(size * size);
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++) modules[y * size + x] = (v[y * words + (x >>> 5)]! >>> (x & 31)) & 1;
  return { size, modules };
}

/**
 * The finished symbol for these codewords (in placement order, error correction included): function patterns,
 * codewords placed (§7.7), the mask of least penalty (§7.8.3) or `mask` when given, format and version
 * information.
 */
export function drawSymbolModules(version: number, ecc: EccName, codewords: Uint8Array, mask?: number): SymbolModules {
  return readOut(_tests.drawSymbol(version, ecc, codewords, mask));
}

/**
 * The codewords placed with mask 0 applied, and no format information, version information or dark module drawn
 * (those modules stay light): what tells which module carries which codeword bit.
 */
export function drawPlacementModules(version: number, codewords: Uint8Array): SymbolModules {
  return readOut(_tests.drawSymbol(version, 'low', codewords, 0, true));
}
