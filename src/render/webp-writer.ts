// Writes a QR matrix as lossless WebP (VP8L, RFC 9649) directly: two-colour palette, 8 pixels a byte, rows as
// back-references.
import { parseColour, type Rgba } from '../domain/render-options.js';
import type { ImageLayout } from './layout.js';
import { packedRows, type PackedRows } from './packed-rows.js';
import type { QrMatrix } from './qr-matrix.js';
import { BitWriter } from './vp8l/bit-writer.js';
import { buildPrefixCode, writePrefixCode, writeSimpleCode, writeSymbol, type PrefixCode } from './vp8l/prefix-code.js';

const SIGNATURE = 0x2f;
const COLOUR_INDEXING_TRANSFORM = 3;
const LENGTH_PREFIXES = 24;
const GREEN_ALPHABET = 256 + LENGTH_PREFIXES;
const DISTANCE_ALPHABET = 40;
const MAX_COPY = 4096;
/**
 * Distance codes (RFC 9649 §4.2.2): code 1 is the 2-D neighbour (0,1), one row up; code 2 is (1,0),
 * the previous pixel. Both map to prefix symbols below 4, so they cost no extra bits.
 */
const UP = 1;
const LEFT = 2;
/** Distance codes past the 120-entry map are plain distances plus 120. */
const DISTANCE_MAP_SIZE = 120;

/** VP8L bundles 8 pixels a byte, the first in the lowest bit; palette index 0 (light) is the zero background. */
const WEBP_ROWS = { leadingBytes: 0, lowBitFirst: true };

/**
 * Red, blue and alpha of packed pixels are always 0; the palette image has no copies. Built once: they never change.
 */
const ZERO = buildPrefixCode(new Uint32Array(256));
const NO_DISTANCES = buildPrefixCode(new Uint32Array(DISTANCE_ALPHABET));

/**
 * The LZ77 stream: `lengths[i]` 0 for a literal (its palette byte in `values[i]`), else a copy of that many pixels from
 * distance code `values[i]`.
 */
interface Tokens {
  count: number;
  lengths: Int32Array;
  values: Int32Array;
}

/**
 * Earlier byte sequences are found through a hash of their first three bytes, as deflate does, keeping only the
 * latest position of each hash: one candidate, deflate's fastest way: without any search some large codes come
 * out larger than their PNG, and longer chains cost more time than the bytes they save
 * (docs/decisions/webp-hash-search.md).
 */
const HASH_BITS = 12;
/** A copy this long is kept without looking further back, and its positions are not hashed (deflate's fast levels). */
const GOOD_ENOUGH_COPY = 8;
/** Rough bits of a literal palette byte, to weigh a copy against spelling its bytes out. */
const LITERAL_BITS = 4;

function extraBitsOf(value: number): number {
  const symbol = prefixSymbol(value);
  return symbol < 4 ? 0 : (symbol - 2) >> 1;
}

/** Bits a copy saves over literals, roughly: its two prefix symbols (about three bits each) and their extra bits. */
function copySaving(length: number, code: number): number {
  return length * LITERAL_BITS - (3 + extraBitsOf(length)) - (code <= LEFT ? 1 : 3 + extraBitsOf(code));
}

function hashAt(row: Uint8Array, i: number): number {
  return Math.imul(row[i]! | (row[i + 1]! << 8) | (row[i + 2]! << 16), 0x9e3779b1) >>> (32 - HASH_BITS);
}

/**
 * Greedy LZ77 over the rows the stream spells out (the first of each run), then each run's repeats as
 * one copy from the row above. Candidates: the row above, the previous pixel, and the latest earlier
 * sequence with the same hash (positions are run * width + x, stored + 1 so that 0 means none).
 */
function tokenize(rows: PackedRows): Tokens {
  const { rowBytes: width, runs } = rows;
  const capacity = runs.length * (width + 1);
  const tokens: Tokens = { count: 0, lengths: new Int32Array(capacity), values: new Int32Array(capacity) };
  const { lengths, values } = tokens;
  const latest = new Int32Array(1 << HASH_BITS);
  const lastRowOfRun = new Int32Array(runs.length);
  let y = 0;
  for (let r = 0; r < runs.length; r++) {
    const row = rows.rows[runs[r]!.row]!;
    const above = r > 0 ? rows.rows[runs[r - 1]!.row]! : undefined;
    lastRowOfRun[r] = y; // while its first row is spelled out, a match in this row is in this row
    for (let i = 0; i < width;) {
      let bestLength = 0;
      let bestCode = 0;
      let bestSaving = 0;
      if (above) {
        let up = 0;
        while (i + up < width && row[i + up] === above[i + up]) up++;
        const saving = copySaving(up, UP);
        if (saving > bestSaving) {
          bestSaving = saving;
          bestLength = up;
          bestCode = UP;
        }
      }
      if (i > 0) {
        let left = 0;
        while (i + left < width && row[i + left] === row[i - 1]) left++;
        const saving = copySaving(left, LEFT);
        if (saving > bestSaving) {
          bestSaving = saving;
          bestLength = left;
          bestCode = LEFT;
        }
      }
      const candidate = i + 2 < width && bestLength < GOOD_ENOUGH_COPY ? latest[hashAt(row, i)]! : 0;
      if (candidate > 0) {
        const sourceRun = Math.floor((candidate - 1) / width);
        const sourceX = candidate - 1 - sourceRun * width;
        const source = rows.rows[runs[sourceRun]!.row]!;
        const limit = width - Math.max(i, sourceX);
        let length = 0;
        while (length < limit && row[i + length] === source[sourceX + length]) length++;
        const distance = (y - lastRowOfRun[sourceRun]!) * width + i - sourceX;
        const saving = length > bestLength && distance > 0 ? copySaving(length, distance + DISTANCE_MAP_SIZE) : 0;
        if (saving > bestSaving) {
          bestSaving = saving;
          bestLength = length;
          bestCode = distance + DISTANCE_MAP_SIZE;
        }
      }
      const start = i;
      if (bestLength > 0) {
        appendCopy(tokens, bestLength, bestCode);
        i += bestLength;
      } else {
        lengths[tokens.count] = 0;
        values[tokens.count++] = row[i++]!;
      }
      if (i - start >= GOOD_ENOUGH_COPY) continue;
      for (let p = start; p < i && p + 2 < width; p++) latest[hashAt(row, p)] = r * width + p + 1;
    }
    const count = runs[r]!.count;
    if (count > 1) appendCopy(tokens, (count - 1) * width, UP);
    lastRowOfRun[r] = y + count - 1;
    y += count;
  }
  return tokens;
}

/** A copy continuing one just made from the same distance is the same copy, longer. */
function appendCopy(tokens: Tokens, length: number, code: number): void {
  const last = tokens.count - 1;
  if (last >= 0 && tokens.lengths[last]! > 0 && tokens.values[last] === code) {
    tokens.lengths[last]! += length;
    return;
  }
  tokens.lengths[tokens.count] = length;
  tokens.values[tokens.count++] = code;
}

/** Lengths and distances as a prefix symbol plus extra bits (RFC 9649 §4.2.2). */
function prefixSymbol(value: number): number {
  const d = value - 1;
  if (d < 4) return d;
  const high = 31 - Math.clz32(d);
  return 2 * high + ((d >> (high - 1)) & 1);
}

function writePrefixed(out: BitWriter, code: PrefixCode, offset: number, value: number): void {
  const symbol = prefixSymbol(value);
  writeSymbol(out, code, offset + symbol);
  if (symbol >= 4) {
    const extraBits = (symbol - 2) >> 1;
    out.write((value - 1) & ((1 << extraBits) - 1), extraBits);
  }
}

/**
 * The palette image: two pixels, so each channel holds one or two values and takes a "simple" code (no
 * tree to build). Both values get one bit, the smaller value 0 (canonical order); a lone value takes no bits.
 */
function writePaletteImage(out: BitWriter, pixels: readonly [Rgba, Rgba]): void {
  const channels = ['g', 'r', 'b', 'a'] as const;
  out.write(0, 1); // no colour cache
  for (const channel of channels) writeSimpleCode(out, pixels[0][channel], pixels[1][channel]);
  writePrefixCode(out, NO_DISTANCES);
  for (const pixel of pixels) {
    for (const channel of channels) {
      const [first, second] = [pixels[0][channel], pixels[1][channel]];
      if (first !== second) out.write(pixel[channel] === Math.max(first, second) ? 1 : 0, 1);
    }
  }
}

/** The palette is sent as differences: each entry minus the one before, per channel, modulo 256. */
function paletteDeltas(light: Rgba, dark: Rgba): [Rgba, Rgba] {
  const delta = (a: number, b: number) => (a - b) & 0xff;
  return [
    light,
    { r: delta(dark.r, light.r), g: delta(dark.g, light.g), b: delta(dark.b, light.b), a: delta(dark.a, light.a) },
  ];
}

function vp8lStream(matrix: QrMatrix, layout: ImageLayout, light: Rgba, dark: Rgba): Uint8Array {
  const rows = packedRows(matrix, layout, WEBP_ROWS);
  const { count, lengths, values } = tokenize(rows);
  const greenCounts = new Uint32Array(GREEN_ALPHABET);
  const distanceCounts = new Uint32Array(DISTANCE_ALPHABET);
  for (let t = 0; t < count; t++) {
    if (lengths[t] === 0) {
      greenCounts[values[t]!]!++;
      continue;
    }
    // Copies longer than the format's 4096 pixels go as pieces.
    for (let left = lengths[t]!; left > 0; left -= MAX_COPY) {
      greenCounts[256 + prefixSymbol(Math.min(left, MAX_COPY))]!++;
      distanceCounts[prefixSymbol(values[t]!)]!++;
    }
  }
  const green = buildPrefixCode(greenCounts);
  const distance = buildPrefixCode(distanceCounts);

  const out = new BitWriter(256 + count * 2);
  out.write(SIGNATURE, 8);
  out.write(layout.side - 1, 14);
  out.write(layout.side - 1, 14);
  out.write(light.a < 255 || dark.a < 255 ? 1 : 0, 1);
  out.write(0, 3); // version
  out.write(1, 1); // a transform follows
  out.write(COLOUR_INDEXING_TRANSFORM, 2);
  out.write(1, 8); // palette of 2 colours: index 0 light, 1 dark; 2 colours mean 8 pixels a byte
  writePaletteImage(out, paletteDeltas(light, dark));
  out.write(0, 1); // no more transforms
  out.write(0, 1); // no colour cache
  out.write(0, 1); // one prefix code group for the whole image
  for (const code of [green, ZERO, ZERO, ZERO, distance]) writePrefixCode(out, code);
  for (let t = 0; t < count; t++) {
    if (lengths[t] === 0) {
      writeSymbol(out, green, values[t]!); // red, blue, alpha: one-symbol codes, zero bits
      continue;
    }
    for (let left = lengths[t]!; left > 0; left -= MAX_COPY) {
      writePrefixed(out, green, 256, Math.min(left, MAX_COPY));
      writePrefixed(out, distance, 0, values[t]!);
    }
  }
  return out.finish();
}

function riff(vp8l: Uint8Array): Buffer {
  const padded = vp8l.length + (vp8l.length & 1);
  const file = Buffer.alloc(20 + padded);
  file.write('RIFF', 0, 'latin1');
  file.writeUInt32LE(12 + padded, 4);
  file.write('WEBPVP8L', 8, 'latin1');
  file.writeUInt32LE(vp8l.length, 16);
  file.set(vp8l, 20);
  return file;
}

export function writeWebp(matrix: QrMatrix, layout: ImageLayout, darkColor: string, lightColor: string): Buffer {
  return riff(vp8lStream(matrix, layout, parseColour(lightColor), parseColour(darkColor)));
}
