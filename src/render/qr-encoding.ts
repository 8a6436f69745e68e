// Chooses the smallest QR symbol for a payload that every reader gives back exactly: version, segments, byte charset
// and ECI.
import type { EccName } from './qr-internals.js';
import { buildKanjiTable, type KanjiTable } from './kanji-table.js';
import { dataCapacityBits, ECI_UTF8, segmentBytes, type SymbolContent } from './qr-codewords.js';
import { COUNT_BITS, planSegments, type ByteCharset, type SegmentPlan } from './qr-segments.js';

export interface EncodingOptions {
  /** UTF-8 behind the ECI designator for all text that is not plain ASCII, never Kanji mode. */
  eci: boolean;
}

/** Versions sharing one set of character-count widths. */
const VERSION_RANGES = [
  [1, 9],
  [10, 26],
  [27, 40],
] as const;

const ECI_HEADER_BITS = 12;

/** A constant of the standard, read off Node's decoder when the module loads (once per render thread). */
const KANJI_TABLE: KanjiTable = buildKanjiTable();

/**
 * One way of writing text: the charset of byte segments, whether Kanji mode may be used, and the ECI that opens the
 * stream.
 */
export interface Encoding {
  charset: ByteCharset;
  kanji: KanjiTable | undefined;
  eci: number | undefined;
}

/**
 * The encodings docs/charsets.md measures against ZXing, zbar and jsQR (test/measure/charsets.ts); the
 * policy below uses only the first three, the ones every reader read exactly.
 */
export const ENCODINGS = {
  ascii: { charset: 'ascii', kanji: undefined, eci: undefined },
  'utf8+eci': { charset: 'utf8', kanji: undefined, eci: ECI_UTF8 },
  'kanji+ascii': { charset: 'ascii', kanji: KANJI_TABLE, eci: undefined },
  utf8: { charset: 'utf8', kanji: undefined, eci: undefined },
  latin1: { charset: 'latin1', kanji: undefined, eci: undefined },
  'latin1+eci': { charset: 'latin1', kanji: undefined, eci: 3 },
  'kanji+shift_jis': { charset: 'shift_jis', kanji: KANJI_TABLE, eci: undefined },
} as const satisfies Record<string, Encoding>;
export type EncodingName = keyof typeof ENCODINGS;

/**
 * Whether iconv (glibc, which zbar converts with) could read the bytes in this charset: WHATWG's decoders accept a
 * superset.
 */
function mayConvert(bytes: Uint8Array, charset: 'big5' | 'shift_jis'): boolean {
  try {
    new TextDecoder(charset, { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * zbar (qrdectxt.c) reads a byte run without an ECI in the first charset that converts it: Shift-JIS, then
 * ISO-8859-1 unless a byte is 0x80–0x9F, Big5, UTF-8. So UTF-8 bytes come back as UTF-8 only when they hold
 * such a byte and neither Shift-JIS nor Big5 can convert them; ZXing guesses UTF-8 for any valid UTF-8.
 */
export function zbarReadsAsUtf8(run: Uint8Array): boolean {
  if (run.every((b) => b < 0x80)) return true;
  return run.some((b) => b >= 0x80 && b < 0xa0) && !mayConvert(run, 'shift_jis') && !mayConvert(run, 'big5');
}

function utf8ReadBare(plan: SegmentPlan): boolean {
  return plan.segments.every(
    (segment) => segment.mode !== 'byte' || zbarReadsAsUtf8(segmentBytes(segment.codePoints, 'utf8', undefined)),
  );
}

/**
 * The charset policy (docs/charsets.md has the figures behind it):
 * - plain ASCII: numeric, alphanumeric and byte segments, no ECI (every reader takes ASCII as ASCII);
 * - text whose every other character Kanji mode carries (Japanese): Kanji mode beside ASCII bytes, no ECI
 *   (13 bits a character where UTF-8 takes 24; an ECI would make zbar read the Kanji bytes in its charset);
 * - anything else: UTF-8 bytes behind ECI 26, or without it where zbar cannot take the bytes for anything
 *   else (12 bits less). jsQR reads every byte segment as UTF-8, so never ISO-8859-1 or Shift-JIS bytes.
 * `eci: true` keeps to UTF-8 behind ECI 26, Japanese included.
 */
function policyFor(codePoints: readonly number[], options: EncodingOptions): Candidate[] {
  if (codePoints.every((c) => c < 0x80)) return [{ encoding: ENCODINGS.ascii }];
  if (options.eci) return [{ encoding: ENCODINGS['utf8+eci'] }];
  return [
    { encoding: ENCODINGS['utf8+eci'] },
    { encoding: ENCODINGS['kanji+ascii'] },
    { encoding: ENCODINGS.utf8, readBack: utf8ReadBare },
  ];
}

/**
 * An encoding, and what its plan must pass for readers to give the text back (when the encoding alone does not promise
 * it).
 */
interface Candidate {
  encoding: Encoding;
  readBack?: (plan: SegmentPlan) => boolean;
}

/** The smallest symbol for the text in these encodings, then the fewest bits; undefined when none fits version 40. */
export function symbolIn(
  codePoints: readonly number[],
  ecc: EccName,
  candidates: ReadonlyArray<Encoding | Candidate>,
): SymbolContent | undefined {
  // Ranges are tried in order and the first that fits wins: every version of a later range is larger.
  for (const [rangeIndex, [first, last]] of VERSION_RANGES.entries()) {
    const countBits = COUNT_BITS[rangeIndex]!;
    let best: (SymbolContent & { bits: number }) | undefined;
    for (const candidate of candidates) {
      const { encoding, readBack } = 'encoding' in candidate ? candidate : { encoding: candidate, readBack: undefined };
      const plan = planSegments(codePoints, { charset: encoding.charset, kanji: encoding.kanji, countBits });
      if (!plan || (readBack && !readBack(plan))) continue;
      const bits = plan.bits + (encoding.eci === undefined ? 0 : ECI_HEADER_BITS);
      let version: number = first;
      while (version <= last && dataCapacityBits(version, ecc) < bits) version++;
      if (version > last) continue;
      if (!best || version < best.version || (version === best.version && bits < best.bits)) {
        best = {
          version,
          ecc,
          segments: plan.segments,
          charset: encoding.charset,
          countBits,
          kanji: encoding.kanji,
          eci: encoding.eci,
          bits,
        };
      }
    }
    if (best) return best;
  }
  return undefined;
}

/** The symbol the service draws for a payload: the smallest the charset policy allows. */
export function chooseSymbol(payload: string, ecc: EccName, options: EncodingOptions): SymbolContent | undefined {
  const codePoints = Array.from(payload, (ch) => ch.codePointAt(0)!);
  return symbolIn(codePoints, ecc, policyFor(codePoints, options));
}
