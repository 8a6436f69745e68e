// A zlib stream (RFC 1950, 1951) from LZ77 tokens its caller already knows: literals and copies, in one dynamic-Huffman
// block whose code a caller may keep for its next streams.
import { canonicalCodes, huffmanLengths } from '../huffman-codes.js';

/** How far back a copy may reach (RFC 1951 §2: a 32 kB window), and how long one copy may be. */
export const DEFLATE_WINDOW = 32768;
export const MIN_COPY = 3;
const MAX_COPY = 258;

const END_OF_BLOCK = 256;
const MAX_CODE_LENGTH = 15;
const MAX_CODE_LENGTH_CODE_LENGTH = 7;
/** RFC 1951 §3.2.7: the order the code-length code's lengths are sent in. */
const CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

const LENGTH_BASE = Uint16Array.of(
  3,
  4,
  5,
  6,
  7,
  8,
  9,
  10,
  11,
  13,
  15,
  17,
  19,
  23,
  27,
  31,
  35,
  43,
  51,
  59,
  67,
  83,
  99,
  115,
  131,
  163,
  195,
  227,
  258,
);
const LENGTH_EXTRA = Uint8Array.of(
  0,
  0,
  0,
  0,
  0,
  0,
  0,
  0,
  1,
  1,
  1,
  1,
  2,
  2,
  2,
  2,
  3,
  3,
  3,
  3,
  4,
  4,
  4,
  4,
  5,
  5,
  5,
  5,
  0,
);
const DISTANCE_BASE = Uint16Array.of(
  1,
  2,
  3,
  4,
  5,
  7,
  9,
  13,
  17,
  25,
  33,
  49,
  65,
  97,
  129,
  193,
  257,
  385,
  513,
  769,
  1025,
  1537,
  2049,
  3073,
  4097,
  6145,
  8193,
  12289,
  16385,
  24577,
);
const DISTANCE_EXTRA = Uint8Array.of(
  0,
  0,
  0,
  0,
  1,
  1,
  2,
  2,
  3,
  3,
  4,
  4,
  5,
  5,
  6,
  6,
  7,
  7,
  8,
  8,
  9,
  9,
  10,
  10,
  11,
  11,
  12,
  12,
  13,
  13,
);

/** Each copy length's code (0-28, for symbols 257-285), and each distance's (0-29), looked up rather than searched. */
const LENGTH_CODE = new Uint8Array(MAX_COPY + 1);
const DISTANCE_CODE = new Uint8Array(DEFLATE_WINDOW + 1);
// Ascending, so 258 ends with code 28, its own (code 27's range would reach it too).
for (let code = 0; code < LENGTH_BASE.length; code++) {
  for (
    let length = LENGTH_BASE[code]!;
    length < LENGTH_BASE[code]! + (1 << LENGTH_EXTRA[code]!) && length <= MAX_COPY;
    length++
  )
    LENGTH_CODE[length] = code;
}
for (let code = 0; code < DISTANCE_BASE.length; code++) {
  for (let distance = DISTANCE_BASE[code]!; distance < DISTANCE_BASE[code]! + (1 << DISTANCE_EXTRA[code]!); distance++)
    DISTANCE_CODE[distance] = code;
}

/** The zlib header: deflate with a 32 kB window, the "fastest" level flag; (0x78 * 256 + 0x01) is a multiple of 31. */
const ZLIB_HEADER = [0x78, 0x01];
const ADLER_MODULUS = 65521;

/**
 * Bits least-significant first into a buffer sized for the worst case; fields public so the token loop can hold them
 * in locals. Not vp8l's BitWriter: a call to its write() per token nearly doubles the token loop
 * (docs/decisions/design-deflate.md).
 */
class BitSink {
  at = 0;
  bits = 0;
  used = 0;

  constructor(readonly bytes: Uint8Array) {}

  /** The low `count` bits of `value` (count ≤ 24). */
  put(value: number, count: number): void {
    this.bits |= value << this.used;
    this.used += count;
    while (this.used >= 8) {
      this.bytes[this.at++] = this.bits & 0xff;
      this.bits >>>= 8;
      this.used -= 8;
    }
  }
}

/**
 * A block's Huffman codes, ready to write with: built from one stream's counts with every symbol given a code (an
 * unseen one a long code), so a later stream of the same kind (the next payload of a design) needs no counting and no
 * codes built. The block header that sends the code is kept as bits.
 */
export class DeflateCode {
  readonly literalCodes: Uint16Array;
  readonly literalLengths: Uint8Array;
  /** Each copy length's code and extra bits as one write (at most 15 + 5 bits), and how many bits that is. */
  readonly lengthBits = new Uint32Array(MAX_COPY + 1);
  readonly lengthCount = new Uint8Array(MAX_COPY + 1);
  readonly distanceCodes: Uint16Array;
  readonly distanceLengths: Uint8Array;
  /** The zlib header, the block header and the code lengths: whole bytes, then `headerUsed` bits in `headerBits`. */
  readonly headerBytes: Uint8Array;
  readonly headerBits: number;
  readonly headerUsed: number;

  constructor(literalCounts: Uint32Array, distanceCounts: Uint32Array) {
    const everyLiteral = literalCounts.map((count) => Math.max(count, 1));
    const everyDistance = distanceCounts.map((count) => Math.max(count, 1));
    this.literalLengths = huffmanLengths(everyLiteral, MAX_CODE_LENGTH);
    this.distanceLengths = huffmanLengths(everyDistance, MAX_CODE_LENGTH);
    this.literalCodes = canonicalCodes(this.literalLengths);
    this.distanceCodes = canonicalCodes(this.distanceLengths);
    for (let length = MIN_COPY; length <= MAX_COPY; length++) {
      const code = LENGTH_CODE[length]!;
      const symbol = 257 + code;
      this.lengthBits[length] =
        this.literalCodes[symbol]! | ((length - LENGTH_BASE[code]!) << this.literalLengths[symbol]!);
      this.lengthCount[length] = this.literalLengths[symbol]! + LENGTH_EXTRA[code]!;
    }
    const header = new BitSink(new Uint8Array(512));
    for (const byte of ZLIB_HEADER) header.put(byte, 8);
    header.put(1, 1); // the final block
    header.put(2, 2); // dynamic Huffman codes
    writeCodeLengths(header, this.literalLengths, this.distanceLengths);
    this.headerBytes = header.bytes.slice(0, header.at);
    this.headerBits = header.bits;
    this.headerUsed = header.used;
  }
}

/**
 * One zlib stream's tokens, kept as they come (a literal byte as itself, a copy as length << 16 | distance: lengths
 * are ≥ 3, so a copy is never < 256), and the Adler-32 of the bytes they stand for, which the caller adds in runs
 * (addSums): a caller that copies a row it wrote before knows that row's sums without reading its bytes again.
 */
export class DeflateTokens {
  #tokens: Uint32Array;
  #count = 0;
  #code: DeflateCode | undefined;
  #adlerA = 1;
  #adlerB = 0;
  /** Bytes the tokens stand for so far: where the next byte goes in the uncompressed stream. */
  position = 0;

  constructor(expectedTokens = 16384) {
    this.#tokens = new Uint32Array(expectedTokens);
  }

  /**
   * The code finish wrote the stream with: the one it was given, or one built from the stream's own counts (keep it for
   * the next).
   */
  get code(): DeflateCode | undefined {
    return this.#code;
  }

  literal(byte: number): void {
    if (this.#count === this.#tokens.length) this.#grow();
    this.#tokens[this.#count++] = byte;
    this.position++;
  }

  /** The `length` bytes starting `distance` back, as copies of at most 258 (length ≥ 3, distance within the window). */
  copy(length: number, distance: number): void {
    this.position += length;
    while (length > MAX_COPY) {
      // Never leave a tail shorter than a copy can be.
      const part = length - MAX_COPY < MIN_COPY ? length - MIN_COPY : MAX_COPY;
      this.#push((part << 16) | distance);
      length -= part;
    }
    this.#push((length << 16) | distance);
  }

  /**
   * Adds bytes to the checksum by their sums: `sum` of the bytes and `weighted`, the sum of each byte times the
   * number of bytes from it to the end of the run (itself included); runs of at most 2^20 bytes. Adler-32 of the run
   * appended follows from those.
   */
  addSums(sum: number, weighted: number, length: number): void {
    this.#adlerB += length * this.#adlerA + weighted;
    this.#adlerA += sum;
    // Reduced only now and then: kept below 2^26 and 2^40, a run of up to 2^20 bytes adds under 2^47, and a double
    // holds integers exactly to 2^53.
    if (this.#adlerA > 2 ** 26 || this.#adlerB > 2 ** 40) this.#reduceAdler();
  }

  #reduceAdler(): void {
    this.#adlerA %= ADLER_MODULUS;
    this.#adlerB %= ADLER_MODULUS;
  }

  /**
   * The zlib stream: header, the one final block, Adler-32 of every byte (as added through addSums). Under `code`
   * when given (a stream like this one before it), else under one built from this stream's counts.
   */
  finish(code?: DeflateCode): Uint8Array {
    this.#code = code ?? this.#ownCode();
    const { headerBytes } = this.#code;
    const sink = new BitSink(new Uint8Array(headerBytes.length + this.#count * 6 + 16)); // a token is at most 48 bits
    sink.bytes.set(headerBytes);
    sink.at = headerBytes.length;
    sink.bits = this.#code.headerBits;
    sink.used = this.#code.headerUsed;
    writeTokenBits(sink, this.#tokens, this.#count, this.#code);
    sink.put(this.#code.literalCodes[END_OF_BLOCK]!, this.#code.literalLengths[END_OF_BLOCK]!);
    if (sink.used > 0) sink.put(0, 8 - sink.used);
    this.#reduceAdler();
    new DataView(sink.bytes.buffer).setUint32(sink.at, ((this.#adlerB << 16) | this.#adlerA) >>> 0);
    return sink.bytes.subarray(0, sink.at + 4);
  }

  #ownCode(): DeflateCode {
    const literalCounts = new Uint32Array(286);
    const distanceCounts = new Uint32Array(30);
    for (let i = 0; i < this.#count; i++) {
      const token = this.#tokens[i]!;
      if (token < 256) literalCounts[token]!++;
      else {
        literalCounts[257 + LENGTH_CODE[token >>> 16]!]!++;
        distanceCounts[DISTANCE_CODE[token & 0xffff]!]!++;
      }
    }
    return new DeflateCode(literalCounts, distanceCounts);
  }

  #push(token: number): void {
    if (this.#count === this.#tokens.length) this.#grow();
    this.#tokens[this.#count++] = token;
  }

  #grow(): void {
    const bigger = new Uint32Array(this.#tokens.length * 2);
    bigger.set(this.#tokens);
    this.#tokens = bigger;
  }
}

/**
 * The kept tokens under a code, with plain locals throughout (the loop runs once per token: each 8 bits out as soon as
 * they are whole, as BitWriter.write does).
 */
function writeTokenBits(out: BitSink, tokens: Uint32Array, count: number, code: DeflateCode): void {
  const { literalCodes, literalLengths, lengthBits, lengthCount, distanceCodes, distanceLengths } = code;
  const bytes = out.bytes;
  let at = out.at;
  let bits = out.bits;
  let used = out.used;
  for (let i = 0; i < count; i++) {
    const token = tokens[i]!;
    if (token < 256) {
      bits |= literalCodes[token]! << used;
      used += literalLengths[token]!;
    } else {
      const length = token >>> 16;
      bits |= lengthBits[length]! << used;
      used += lengthCount[length]!;
      while (used >= 8) {
        bytes[at++] = bits & 0xff;
        bits >>>= 8;
        used -= 8;
      }
      const distance = token & 0xffff;
      const distanceCode = DISTANCE_CODE[distance]!;
      bits |= distanceCodes[distanceCode]! << used;
      used += distanceLengths[distanceCode]!;
      while (used >= 8) {
        bytes[at++] = bits & 0xff;
        bits >>>= 8;
        used -= 8;
      }
      bits |= (distance - DISTANCE_BASE[distanceCode]!) << used;
      used += DISTANCE_EXTRA[distanceCode]!;
    }
    while (used >= 8) {
      bytes[at++] = bits & 0xff;
      bits >>>= 8;
      used -= 8;
    }
  }
  out.at = at;
  out.bits = bits;
  out.used = used;
}

/**
 * HLIT, HDIST, HCLEN and the two codes' lengths, run-length coded (16: repeat the last 3-6 times, 17 and 18: runs of
 * zeros) under a code of their own (RFC 1951 §3.2.7).
 */
function writeCodeLengths(out: BitSink, literalLengths: Uint8Array, distanceLengths: Uint8Array): void {
  let literals = 286;
  while (literals > 257 && literalLengths[literals - 1] === 0) literals--;
  let distances = 30;
  while (distances > 1 && distanceLengths[distances - 1] === 0) distances--;
  const lengths = [...literalLengths.subarray(0, literals), ...distanceLengths.subarray(0, distances)];
  const symbols: number[] = [];
  const extras: number[] = [];
  for (let i = 0; i < lengths.length;) {
    const length = lengths[i]!;
    let run = 1;
    while (i + run < lengths.length && lengths[i + run] === length) run++;
    if (length === 0 && run >= 3) {
      run = Math.min(run, 138);
      symbols.push(run >= 11 ? 18 : 17);
      extras.push(run >= 11 ? run - 11 : run - 3);
    } else if (length !== 0 && run >= 4) {
      run = Math.min(run, 7); // the length itself, then 3-6 repeats
      symbols.push(length, 16);
      extras.push(0, run - 4);
    } else {
      run = 1;
      symbols.push(length);
      extras.push(0);
    }
    i += run;
  }
  const counts = new Uint32Array(19);
  for (const symbol of symbols) counts[symbol]!++;
  // The code-length code must be complete: with a single symbol in use, a second (unused) one makes it so.
  if (counts.filter((count) => count > 0).length < 2) counts[counts[0] === 0 ? 0 : 1]!++;
  const codeLengths = huffmanLengths(counts, MAX_CODE_LENGTH_CODE_LENGTH);
  const codes = canonicalCodes(codeLengths);
  let sent = CODE_LENGTH_ORDER.length;
  while (sent > 4 && codeLengths[CODE_LENGTH_ORDER[sent - 1]!] === 0) sent--;
  out.put(literals - 257, 5);
  out.put(distances - 1, 5);
  out.put(sent - 4, 4);
  for (let i = 0; i < sent; i++) out.put(codeLengths[CODE_LENGTH_ORDER[i]!]!, 3);
  for (let i = 0; i < symbols.length; i++) {
    const symbol = symbols[i]!;
    out.put(codes[symbol]!, codeLengths[symbol]!);
    if (symbol === 16) out.put(extras[i]!, 2);
    else if (symbol === 17) out.put(extras[i]!, 3);
    else if (symbol === 18) out.put(extras[i]!, 7);
  }
}
