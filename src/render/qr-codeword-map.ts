// Which codeword, and which Reed–Solomon block, each module of a QR symbol carries: a function of the version and level
// alone.
import type { ErrorCorrectionLevel } from '../domain/render-options.js';
import { blockShape, drawPlacementModules, totalCodewords } from './qr-internals.js';
import { ECC_NAMES } from './qr-matrix.js';

/** Modules that carry no codeword bit: function patterns, format and version areas, remainder bits. */
export const NO_CODEWORD = -1;

/**
 * The index (in the interleaved codeword sequence) of the codeword each module holds a bit of, row-major, or
 * NO_CODEWORD. Read off `qr`'s own placement, the one every matrix we draw goes through (qr-matrix.ts): a module
 * that changes between all-zero and all-one codewords carries data, and drawing once per bit of the codeword index
 * (codeword c all ones where bit k of c is set) spells out which codeword. Placement depends on the version only:
 * never on the data or the mask (a mask flips modules in place), nor on the level. Worked out on each call (at most
 * 62 kB): a constant of the standard, kept by the caller that asks often (DesignCaches.codewordPlacement).
 */
export function codewordOfModules(version: number): Int16Array {
  const total = totalCodewords(version);
  const codewords = (byteOf: (codeword: number) => number) =>
    drawPlacementModules(
      version,
      Uint8Array.from({ length: total }, (_, c) => byteOf(c)),
    ).modules;
  const none = codewords(() => 0);
  const all = codewords(() => 0xff);
  const out = new Int16Array(none.length).fill(NO_CODEWORD);
  none.forEach((module, i) => {
    if (module !== all[i]) out[i] = 0;
  });
  for (let bit = 0; 1 << bit < total; bit++) {
    const drawn = codewords((c) => ((c >> bit) & 1 ? 0xff : 0));
    drawn.forEach((module, i) => {
      if (out[i] !== NO_CODEWORD && module !== none[i]) out[i] = out[i]! | (1 << bit);
    });
  }
  return out;
}

/**
 * The Reed–Solomon block of each codeword in interleaved order (§7.6): data codewords taken a column at a time
 * from every block (the short blocks first, each shorter by one), then the error correction codewords likewise,
 * as the encoder interleaves them (qr-codewords.ts).
 */
export function blockOfCodewords(version: number, level: ErrorCorrectionLevel): Uint8Array {
  const { total, blockCount, eccPerBlock, shortBlocks, shortLength } = blockShape(version, ECC_NAMES[level]);
  const out = new Uint8Array(total);
  let at = 0;
  for (let i = 0; i <= shortLength; i++)
    for (let b = 0; b < blockCount; b++) if (i < shortLength || b >= shortBlocks) out[at++] = b;
  for (let i = 0; i < eccPerBlock; i++) for (let b = 0; b < blockCount; b++) out[at++] = b;
  return out;
}

/**
 * Misdecode-protection codewords (ISO/IEC 18004 table 9, "p"): in the smallest symbols some error correction
 * codewords guard against a wrong decode instead of correcting, so they do not count towards what a block corrects.
 */
function misdecodeProtection(version: number, level: ErrorCorrectionLevel): number {
  if (version === 1) return { L: 3, M: 2, Q: 1, H: 1 }[level];
  if (version === 2 && level === 'L') return 2;
  if (version === 3 && level === 'L') return 1;
  return 0;
}

/** Codewords each block of the symbol corrects when nothing says where the errors are: ⌊(ec − p) / 2⌋. */
export function correctableErrorsPerBlock(version: number, level: ErrorCorrectionLevel): number {
  return Math.floor((blockShape(version, ECC_NAMES[level]).eccPerBlock - misdecodeProtection(version, level)) / 2);
}

/** A square of modules: first column and row, modules per side. */
export interface ModuleSquare {
  start: number;
  side: number;
}

/** For each Reed–Solomon block, how many of its codewords have at least one module inside `square`. */
export function codewordsTouchedPerBlock(
  version: number,
  level: ErrorCorrectionLevel,
  square: ModuleSquare,
  codewordOf: Int16Array = codewordOfModules(version),
): number[] {
  const size = 17 + 4 * version;
  const blockOf = blockOfCodewords(version, level);
  const touched = new Uint8Array(blockOf.length);
  const from = Math.max(0, square.start);
  const to = Math.min(size, square.start + square.side);
  for (let y = from; y < to; y++)
    for (let x = from; x < to; x++) {
      const codeword = codewordOf[y * size + x]!;
      if (codeword !== NO_CODEWORD) touched[codeword] = 1;
    }
  const perBlock = new Array<number>(blockShape(version, ECC_NAMES[level]).blockCount).fill(0);
  touched.forEach((hit, codeword) => {
    if (hit) perBlock[blockOf[codeword]!]!++;
  });
  return perBlock;
}
