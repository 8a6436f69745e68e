// How much of a content's kind one QR code holds at a level, as the charset policy writes it: for the content_too_long
// answer.
import type { ErrorCorrectionLevel } from '../domain/render-options.js';
import { dataCapacityBits } from './qr-codewords.js';
import { ENCODINGS, zbarReadsAsUtf8 } from './qr-encoding.js';
import { ECC_NAMES } from './qr-matrix.js';
import { COUNT_BITS, halfwidthKatakanaByte, isAlphanumeric } from './qr-segments.js';

export interface ContentCapacity {
  /** How the policy writes this kind of text (docs/charsets.md). */
  encoding: 'numeric' | 'alphanumeric' | 'ascii' | 'kanji' | 'utf8' | 'utf8+eci';
  /** What `limit` and `length` count. */
  unit: 'digits' | 'characters' | 'bytes';
  /** The most of this unit version 40 holds at the level, in this encoding alone. */
  limit: number;
  /** The content's size in that unit. */
  length: number;
  /** The sentence for the problem's detail. */
  detail: string;
}

const MODE_BITS = 4;
const ECI_HEADER_BITS = 12;
const V40 = COUNT_BITS[2]!;

/** The largest n with header + bitsFor(n) ≤ capacity (bitsFor grows with n). */
function largest(capacity: number, bitsFor: (n: number) => number): number {
  let n = 0;
  let step = 1 << 13;
  for (; step > 0; step >>= 1) if (bitsFor(n + step) <= capacity) n += step;
  return n;
}

const numericBits = (n: number) => MODE_BITS + V40.numeric + 10 * Math.floor(n / 3) + [0, 4, 7][n % 3]!;
const alphanumericBits = (n: number) => MODE_BITS + V40.alphanumeric + 11 * Math.floor(n / 2) + 6 * (n % 2);
const byteBits = (n: number) => MODE_BITS + V40.byte + 8 * n;
const kanjiBits = (n: number) => MODE_BITS + V40.kanji + 13 * n;

/**
 * Linear in the content, no segment plan (this runs on a refusal, before anything is counted). The content is
 * already known not to fit; the figure is the capacity of the one encoding its kind is written in, which is the
 * real limit for text of one kind (all digits, all capitals, Japanese, …) and an honest bound for mixed text,
 * which the planner may pack a little tighter (said in the sentence).
 */
export function contentCapacity(payload: string, level: ErrorCorrectionLevel, eci: boolean): ContentCapacity {
  const capacity = dataCapacityBits(40, ECC_NAMES[level]);
  const codePoints = Array.from(payload, (ch) => ch.codePointAt(0)!);
  const number = (n: number) => n.toLocaleString('en-US');
  /** The limit in `bits`' encoding, and the sentence: what the content is, then what the code holds (`holds`). */
  const capacityIn = (
    of: Pick<ContentCapacity, 'encoding' | 'unit' | 'length'>,
    bits: (n: number) => number,
    what: string,
    holds: string,
    available = capacity,
  ): ContentCapacity => {
    const limit = largest(available, bits);
    const detail = `the content is ${number(of.length)} ${what}; at error correction ${level} a QR code holds at most `;
    return {
      encoding: of.encoding,
      unit: of.unit,
      limit,
      length: of.length,
      detail: `${detail}${number(limit)} ${holds}`,
    };
  };
  const length = codePoints.length;
  if (codePoints.every((c) => c >= 0x30 && c <= 0x39)) {
    return capacityIn(
      { encoding: 'numeric', unit: 'digits', length },
      numericBits,
      'digits, written in numeric mode',
      'digits',
    );
  }
  if (codePoints.every(isAlphanumeric)) {
    const what = 'characters of digits, capital letters and $%*+-./: and space, written in alphanumeric mode';
    return capacityIn({ encoding: 'alphanumeric', unit: 'characters', length }, alphanumericBits, what, 'of them');
  }
  if (codePoints.every((c) => c < 0x80)) {
    const what = 'ASCII characters, written one byte each (runs of digits or capitals packed tighter)';
    return capacityIn({ encoding: 'ascii', unit: 'characters', length }, byteBits, what, 'bytes');
  }
  const kanji = ENCODINGS['kanji+ascii'].kanji;
  if (!eci && codePoints.every((c) => c < 0x80 || kanji.has(c) || halfwidthKatakanaByte(c) !== undefined)) {
    const what =
      'characters that Kanji mode carries (Japanese, and the Greek and Cyrillic of JIS X 0208), written 13 bits a ' +
      'character (ASCII beside it one byte each)';
    return capacityIn({ encoding: 'kanji', unit: 'characters', length }, kanjiBits, what, 'Kanji characters');
  }
  const utf8 = Buffer.from(payload);
  // Bytes zbar can take for nothing but UTF-8 go without the ECI designator (12 bits less), as the policy writes them.
  const bare = !eci && zbarReadsAsUtf8(utf8);
  const how = bare ? 'as bytes every reader takes for UTF-8' : 'behind ECI 26 (UTF-8) so every reader reads it';
  return capacityIn(
    { encoding: bare ? 'utf8' : 'utf8+eci', unit: 'bytes', length: utf8.length },
    byteBits,
    `bytes of UTF-8, written ${how}`,
    'such bytes',
    capacity - (bare ? 0 : ECI_HEADER_BITS),
  );
}
