// Turns planned segments into a QR symbol's final codewords: bit stream, padding, Reed–Solomon blocks interleaved.
import { kanjiValue, type KanjiTable } from './kanji-table.js';
import { blockShape, gf256, reedSolomonRemainder, type EccName } from './qr-internals.js';
import {
  ALPHANUMERIC_CHARS,
  halfwidthKatakanaByte,
  type ByteCharset,
  type Segment,
  type SegmentMode,
} from './qr-segments.js';

const MODE_INDICATOR: Record<SegmentMode, number> = {
  numeric: 0b0001,
  alphanumeric: 0b0010,
  byte: 0b0100,
  kanji: 0b1000,
};
const ECI_INDICATOR = 0b0111;
/** ECI assignment number of UTF-8 (AIM ECI specification). */
export const ECI_UTF8 = 26;

/** Data bits a version holds at a level: total codewords less the error correction codewords. */
export function dataCapacityBits(version: number, ecc: EccName): number {
  const { total, blockCount, eccPerBlock } = blockShape(version, ecc);
  return (total - eccPerBlock * blockCount) * 8;
}

class BitWriter {
  readonly bytes: Uint8Array;
  length = 0;
  constructor(capacityBytes: number) {
    this.bytes = new Uint8Array(capacityBytes);
  }
  push(value: number, bits: number): void {
    for (let i = bits - 1; i >= 0; i--, this.length++)
      if ((value >>> i) & 1) this.bytes[this.length >>> 3]! |= 0x80 >>> (this.length & 7);
  }
}

/** The bytes of a byte segment; the planner only put characters there that the charset carries. */
export function segmentBytes(
  codePoints: readonly number[],
  charset: ByteCharset,
  kanji: KanjiTable | undefined,
): Uint8Array {
  if (charset === 'utf8') return Buffer.from(String.fromCodePoint(...codePoints), 'utf8');
  if (charset !== 'shift_jis') return Uint8Array.from(codePoints); // ascii and latin1: each code point is its byte
  const out: number[] = [];
  for (const c of codePoints) {
    const code = c < 0x80 ? c : (halfwidthKatakanaByte(c) ?? kanji!.get(c)!);
    if (code > 0xff) out.push(code >> 8, code & 0xff);
    else out.push(code);
  }
  return Uint8Array.from(out);
}

function writeSegment(
  out: BitWriter,
  segment: Segment,
  charset: ByteCharset,
  countBits: Record<SegmentMode, number>,
  kanji: KanjiTable | undefined,
): void {
  const chars = segment.codePoints;
  out.push(MODE_INDICATOR[segment.mode], 4);
  switch (segment.mode) {
    case 'numeric':
      out.push(chars.length, countBits.numeric);
      for (let i = 0; i < chars.length; i += 3) {
        const group = chars.slice(i, i + 3);
        out.push(Number(String.fromCodePoint(...group)), [0, 4, 7, 10][group.length]!);
      }
      return;
    case 'alphanumeric':
      out.push(chars.length, countBits.alphanumeric);
      for (let i = 0; i + 1 < chars.length; i += 2) {
        out.push(
          ALPHANUMERIC_CHARS.indexOf(String.fromCodePoint(chars[i]!)) * 45 +
            ALPHANUMERIC_CHARS.indexOf(String.fromCodePoint(chars[i + 1]!)),
          11,
        );
      }
      if (chars.length % 2) out.push(ALPHANUMERIC_CHARS.indexOf(String.fromCodePoint(chars[chars.length - 1]!)), 6);
      return;
    case 'kanji':
      out.push(chars.length, countBits.kanji);
      for (const c of chars) out.push(kanjiValue(kanji!.get(c)!), 13);
      return;
    case 'byte': {
      const bytes = segmentBytes(chars, charset, kanji);
      out.push(bytes.length, countBits.byte);
      for (const b of bytes) out.push(b, 8);
    }
  }
}

function rsGenerator(degree: number): Uint8Array {
  const { exp, log } = gf256;
  const gen = new Uint8Array(degree); // coefficients after the leading x^degree, highest first
  gen[degree - 1] = 1;
  for (let i = 0, root = 1; i < degree; i++) {
    for (let j = 0; j < degree; j++)
      gen[j] = (gen[j] ? exp[log[gen[j]!]! + log[root]!]! : 0) ^ (j + 1 < degree ? gen[j + 1]! : 0);
    root = exp[log[root]! + 1]!;
  }
  return gen;
}

/**
 * Splits data codewords into blocks (short ones first), adds each block's error correction, interleaves both (§7.6).
 */
function interleaveWithEcc(data: Uint8Array, version: number, ecc: EccName): Uint8Array {
  const { total, blockCount, eccPerBlock, shortBlocks, shortLength } = blockShape(version, ecc);
  const gen = rsGenerator(eccPerBlock);
  const blocks: Uint8Array[] = [];
  const eccs: Uint8Array[] = [];
  for (let i = 0, at = 0; i < blockCount; i++) {
    const length = shortLength + (i < shortBlocks ? 0 : 1);
    blocks.push(data.subarray(at, at + length));
    eccs.push(reedSolomonRemainder(data.subarray(at, at + length), gen));
    at += length;
  }
  const out = new Uint8Array(total);
  let p = 0;
  for (let i = 0; i <= shortLength; i++) for (const block of blocks) if (i < block.length) out[p++] = block[i]!;
  for (let i = 0; i < eccPerBlock; i++) for (const e of eccs) out[p++] = e[i]!;
  return out;
}

export interface SymbolContent {
  version: number;
  ecc: EccName;
  segments: Segment[];
  charset: ByteCharset;
  countBits: Record<SegmentMode, number>;
  kanji: KanjiTable | undefined;
  /** ECI assignment to open the stream with, if any. */
  eci: number | undefined;
}

/** Every codeword of the symbol in placement order: data bits, terminator, pad codewords, then error correction. */
export function symbolCodewords(content: SymbolContent): Uint8Array {
  const capacityBits = dataCapacityBits(content.version, content.ecc);
  const out = new BitWriter(capacityBits / 8);
  if (content.eci !== undefined) {
    out.push(ECI_INDICATOR, 4);
    out.push(content.eci, 8);
  }
  for (const segment of content.segments) writeSegment(out, segment, content.charset, content.countBits, content.kanji);
  if (out.length > capacityBits) throw new RangeError('segments exceed the version capacity');
  out.length = Math.min(capacityBits, out.length + 4); // terminator (zero bits)
  out.length = Math.ceil(out.length / 8) * 8;
  for (let i = out.length / 8, pad = 0; i < out.bytes.length; i++, pad ^= 1) out.bytes[i] = pad ? 0x11 : 0xec;
  return interleaveWithEcc(out.bytes, content.version, content.ecc);
}
