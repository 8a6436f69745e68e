// Which codeword, and which Reed–Solomon block, each module of a QR symbol carries: a function of the version and level alone.
import { _alignmentPatterns, _BYTES, _ECC_BLOCKS, _WORDS_PER_BLOCK } from 'qr';
import type { ErrorCorrectionLevel } from '../domain/render-options.js';
import { ECC_NAMES } from './qr-matrix.js';

/** Modules that carry no codeword bit: function patterns, format and version areas, remainder bits. */
export const NO_CODEWORD = -1;

/** Finder patterns with their separators, timing patterns, alignment patterns, format and version areas, the dark module. */
function functionModules(version: number): Uint8Array {
  const size = 17 + 4 * version;
  const fn = new Uint8Array(size * size);
  const mark = (x: number, y: number) => {
    if (x >= 0 && y >= 0 && x < size && y < size) fn[y * size + x] = 1;
  };
  for (const [fx, fy] of [
    [0, 0],
    [size - 7, 0],
    [0, size - 7],
  ] as const)
    for (let dy = -1; dy < 8; dy++) for (let dx = -1; dx < 8; dx++) mark(fx + dx, fy + dy);
  const align = _alignmentPatterns(version);
  for (const ay of align)
    for (const ax of align) {
      if (fn[ay * size + ax]) continue; // the three corners under a finder
      for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) mark(ax + dx, ay + dy);
    }
  for (let i = 0; i < size; i++) {
    mark(i, 6);
    mark(6, i);
  }
  for (let i = 0; i < 9; i++) {
    mark(8, i);
    mark(i, 8);
  }
  for (let i = 0; i < 8; i++) {
    mark(size - 1 - i, 8);
    mark(8, size - 1 - i); // the dark module (8, size - 8) among them
  }
  if (version >= 7)
    for (let i = 0; i < 18; i++) {
      mark(size - 11 + (i % 3), Math.floor(i / 3));
      mark(Math.floor(i / 3), size - 11 + (i % 3));
    }
  return fn;
}

/**
 * The index (in the interleaved codeword sequence) of the codeword each module holds a bit of, row-major, or
 * NO_CODEWORD. ISO/IEC 18004 §7.7.3: the bit stream runs in two-module columns from the right, up then down,
 * skipping function modules and the vertical timing column. Placement depends on the version only: never on the
 * data or the mask (a mask flips modules in place).
 */
export function codewordOfModules(version: number): Int16Array {
  const size = 17 + 4 * version;
  const fn = functionModules(version);
  const out = new Int16Array(size * size).fill(NO_CODEWORD);
  const bits = _BYTES[version - 1]! * 8;
  let bit = 0;
  for (let right = size - 1, upwards = true; right > 0; right -= 2, upwards = !upwards) {
    if (right === 6) right = 5;
    for (let step = 0; step < size; step++) {
      const y = upwards ? size - 1 - step : step;
      for (const x of [right, right - 1]) {
        if (fn[y * size + x]) continue;
        if (bit < bits) out[y * size + x] = bit >>> 3;
        bit++;
      }
    }
  }
  return out;
}

/**
 * The Reed–Solomon block of each codeword in interleaved order (§7.6): data codewords taken a column at a time
 * from every block (the short blocks first, each shorter by one), then the error correction codewords likewise.
 */
export function blockOfCodewords(version: number, level: ErrorCorrectionLevel): Uint8Array {
  const ecc = ECC_NAMES[level];
  const total = _BYTES[version - 1]!;
  const blocks = _ECC_BLOCKS[ecc][version - 1]!;
  const eccPerBlock = _WORDS_PER_BLOCK[ecc][version - 1]!;
  const shortBlocks = blocks - (total % blocks);
  const shortData = Math.floor(total / blocks) - eccPerBlock;
  const out = new Uint8Array(total);
  let at = 0;
  for (let i = 0; i <= shortData; i++) for (let b = 0; b < blocks; b++) if (i < shortData || b >= shortBlocks) out[at++] = b;
  for (let i = 0; i < eccPerBlock; i++) for (let b = 0; b < blocks; b++) out[at++] = b;
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
  return Math.floor((_WORDS_PER_BLOCK[ECC_NAMES[level]][version - 1]! - misdecodeProtection(version, level)) / 2);
}

/** A square of modules: first column and row, modules per side. */
export interface ModuleSquare {
  start: number;
  side: number;
}

/** For each Reed–Solomon block, how many of its codewords have at least one module inside `square`. */
export function codewordsTouchedPerBlock(version: number, level: ErrorCorrectionLevel, square: ModuleSquare): number[] {
  const size = 17 + 4 * version;
  const codewordOf = codewordOfModules(version);
  const blockOf = blockOfCodewords(version, level);
  const touched = new Uint8Array(blockOf.length);
  const from = Math.max(0, square.start);
  const to = Math.min(size, square.start + square.side);
  for (let y = from; y < to; y++)
    for (let x = from; x < to; x++) {
      const codeword = codewordOf[y * size + x]!;
      if (codeword !== NO_CODEWORD) touched[codeword] = 1;
    }
  const perBlock = new Array<number>(_ECC_BLOCKS[ECC_NAMES[level]][version - 1]!).fill(0);
  touched.forEach((hit, codeword) => {
    if (hit) perBlock[blockOf[codeword]!]!++;
  });
  return perBlock;
}
