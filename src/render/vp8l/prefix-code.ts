// Canonical prefix (Huffman) codes for VP8L: lengths from symbol counts, and how a code is written into the stream.
import { canonicalCodes, huffmanLengths } from '../huffman-codes.js';
import type { BitWriter } from './bit-writer.js';

/** A code ready to write symbols with: `bits[s]` bits of `codes[s]` (already bit-reversed for LSB-first output). */
export interface PrefixCode {
  /** Code lengths as transmitted to the decoder. */
  lengths: Uint8Array;
  /** Bits written per symbol: 0 when the code has one symbol (a decoder reads nothing for it). */
  bits: Uint8Array;
  codes: Uint16Array;
}

const MAX_CODE_LENGTH = 15;
const MAX_CODE_LENGTH_CODE_LENGTH = 7;
/** RFC 9649 §3.7.2.1.2: the order code-length code lengths are sent in. */
const CODE_LENGTH_ORDER = [17, 18, 0, 1, 2, 3, 4, 5, 16, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

/** A VP8L code: canonical codes, but a lone symbol is written with no bits at all. */
function codeFromLengths(lengths: Uint8Array): PrefixCode {
  let symbols = 0;
  for (let s = 0; s < lengths.length; s++) if (lengths[s] !== 0) symbols++;
  if (symbols === 1) return { lengths, bits: new Uint8Array(lengths.length), codes: new Uint16Array(lengths.length) };
  return { lengths, bits: lengths.slice(), codes: canonicalCodes(lengths) };
}

export function buildPrefixCode(counts: ArrayLike<number>): PrefixCode {
  return codeFromLengths(huffmanLengths(counts, MAX_CODE_LENGTH));
}

export function writeSymbol(out: BitWriter, code: PrefixCode, symbol: number): void {
  out.write(code.codes[symbol]!, code.bits[symbol]!);
}

/**
 * The "simple" form of a code of one or two symbols below 256 (the same symbol twice: one), a few bits.
 * Its symbols both have length 1: the smaller is written as 0, the larger as 1; a lone symbol takes no bits.
 */
export function writeSimpleCode(out: BitWriter, a: number, b: number): void {
  const [first, second] = a <= b ? [a, b] : [b, a];
  out.write(1, 1); // simple code
  out.write(first === second ? 0 : 1, 1);
  if (first < 2) {
    out.write(0, 1); // first symbol in 1 bit
    out.write(first, 1);
  } else {
    out.write(1, 1); // first symbol in 8 bits
    out.write(first, 8);
  }
  if (first !== second) out.write(second, 8);
}

/**
 * Sends a code's lengths: the "simple" form for one or two symbols below 256 (a few bits), otherwise
 * the normal form, its lengths run-length coded (17/18 for runs of zeros) with a code of their own.
 */
export function writePrefixCode(out: BitWriter, code: PrefixCode): void {
  const used: number[] = [];
  for (let s = 0; s < code.lengths.length && used.length <= 2; s++) if (code.lengths[s]! > 0) used.push(s);
  if (used.length === 0) used.push(0);
  if (used.length <= 2 && used.every((s) => s < 256)) {
    writeSimpleCode(out, used[0]!, used[1] ?? used[0]!);
    return;
  }
  out.write(0, 1); // normal code
  // Lengths as tokens: 0..15 literally, 17 (3-10 zeros, 3 extra bits), 18 (11-138 zeros, 7 extra bits).
  const tokens: number[] = [];
  const extras: number[] = [];
  const lengths = code.lengths;
  for (let s = 0; s < lengths.length;) {
    let run = 0;
    while (s + run < lengths.length && lengths[s + run] === 0 && run < 138) run++;
    if (run >= 3) {
      tokens.push(run >= 11 ? 18 : 17);
      extras.push(run >= 11 ? run - 11 : run - 3);
    } else {
      tokens.push(lengths[s]!);
      extras.push(0);
      run = 1;
    }
    s += run;
  }
  const counts = new Uint32Array(19);
  for (const token of tokens) counts[token]!++;
  const lengthCode = codeFromLengths(huffmanLengths(counts, MAX_CODE_LENGTH_CODE_LENGTH));
  let sent = CODE_LENGTH_ORDER.length;
  while (sent > 4 && lengthCode.lengths[CODE_LENGTH_ORDER[sent - 1]!] === 0) sent--;
  out.write(sent - 4, 4);
  for (let i = 0; i < sent; i++) out.write(lengthCode.lengths[CODE_LENGTH_ORDER[i]!]!, 3);
  out.write(0, 1); // every symbol's length is sent (no max_symbol)
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    writeSymbol(out, lengthCode, token);
    if (token === 17) out.write(extras[i]!, 3);
    else if (token === 18) out.write(extras[i]!, 7);
  }
}
