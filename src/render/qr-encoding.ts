// Chooses the smallest QR symbol for a payload that readers give back exactly: version, segments and byte charset.
import type { ErrorCorrection } from 'qr';
import { buildKanjiTable, type KanjiTable } from './kanji-table.js';
import { readersTakeRunsAs } from './charset-guess.js';
import { dataCapacityBits, ECI_UTF8, segmentBytes, type SymbolContent } from './qr-codewords.js';
import { COUNT_BITS, halfwidthKatakanaByte, planSegments, type ByteCharset, type SegmentMode, type SegmentPlan } from './qr-segments.js';

export interface EncodingOptions {
  /** Open with the UTF-8 ECI designator (when the text is not plain ASCII), for readers that need the charset named. */
  eci: boolean;
}

/** Versions sharing one set of character-count widths. */
const VERSION_RANGES = [
  [1, 9],
  [10, 26],
  [27, 40],
] as const;

const ECI_HEADER_BITS = 12;

/** A constant of the standard, read off Node's decoder when the module loads (about 6 ms, once per render thread). */
const KANJI_TABLE: KanjiTable = buildKanjiTable();

/**
 * The plans readers decode exactly, each with its own byte charset:
 * - UTF-8 byte segments (the fallback that carries anything; with `eci`, the only plan, behind ECI 26);
 * - ISO-8859-1 byte segments, when every character has a byte there and readers will not guess another charset;
 * - Kanji mode beside byte segments of ASCII, or of Shift-JIS (half-width katakana, or a kanji where a
 *   segment switch costs more than its 16 bits). Never beside other bytes: zbar converts a byte run next
 *   to Kanji as Shift-JIS. Never with an ECI: zbar then reads Kanji bytes in the ECI's charset, as
 *   ISO/IEC 18004 says. Without `\` and `~` (¥ and ‾ to Shift-JIS readers).
 */
interface Candidate {
  charset: ByteCharset;
  kanji: KanjiTable | undefined;
  eci: number | undefined;
}

function candidatesFor(codePoints: readonly number[], options: EncodingOptions): Candidate[] {
  const nonAscii = codePoints.some((c) => c >= 0x80);
  if (!nonAscii) return [{ charset: 'ascii', kanji: undefined, eci: undefined }];
  if (options.eci) return [{ charset: 'utf8', kanji: undefined, eci: ECI_UTF8 }];
  const candidates: Candidate[] = [{ charset: 'utf8', kanji: undefined, eci: undefined }];
  if (codePoints.every((c) => c <= 0xff)) candidates.push({ charset: 'latin1', kanji: undefined, eci: undefined });
  if (codePoints.some((c) => KANJI_TABLE.has(c) || halfwidthKatakanaByte(c) !== undefined)) {
    candidates.push({ charset: 'ascii', kanji: KANJI_TABLE, eci: undefined }, { charset: 'shift_jis', kanji: KANJI_TABLE, eci: undefined });
  }
  return candidates;
}

/** A plan whose byte runs readers would take in another charset than the one written is no plan. */
function readBackExactly(plan: SegmentPlan, candidate: Candidate): boolean {
  if (candidate.charset !== 'latin1' && candidate.charset !== 'shift_jis') return true;
  const runs = plan.segments.filter((s) => s.mode === 'byte').map((s) => segmentBytes(s.codePoints, candidate.charset, candidate.kanji));
  return readersTakeRunsAs(
    candidate.charset,
    runs,
    plan.segments.some((s) => s.mode === 'kanji'),
  );
}

function oneByteSegment(codePoints: number[], countBits: Record<SegmentMode, number>): SegmentPlan {
  return { segments: [{ mode: 'byte', codePoints }], bits: 4 + countBits.byte + 8 * codePoints.length };
}

/**
 * The smallest version any candidate plan fits, then the fewest bits. Ranges are tried in order and the
 * first that fits wins: every version of a later range is larger.
 */
export function chooseSymbol(payload: string, ecc: ErrorCorrection, options: EncodingOptions): SymbolContent | undefined {
  const codePoints = Array.from(payload, (ch) => ch.codePointAt(0)!);
  const candidates = candidatesFor(codePoints, options);
  for (const [rangeIndex, [first, last]] of VERSION_RANGES.entries()) {
    const countBits = COUNT_BITS[rangeIndex]!;
    let best: (SymbolContent & { bits: number }) | undefined;
    for (const candidate of candidates) {
      let plan = planSegments(codePoints, { charset: candidate.charset, kanji: candidate.kanji, countBits });
      // A split can leave a run readers misjudge where the whole text in one run is read right: try that too.
      if (plan && !readBackExactly(plan, candidate) && candidate.charset === 'latin1') plan = oneByteSegment(codePoints, countBits);
      if (!plan || !readBackExactly(plan, candidate)) continue;
      const bits = plan.bits + (candidate.eci === undefined ? 0 : ECI_HEADER_BITS);
      let version: number = first;
      while (version <= last && dataCapacityBits(version, ecc) < bits) version++;
      if (version > last) continue;
      if (!best || version < best.version || (version === best.version && bits < best.bits)) {
        best = { version, ecc, segments: plan.segments, charset: candidate.charset, countBits, kanji: candidate.kanji, eci: candidate.eci, bits };
      }
    }
    if (best) return best;
  }
  return undefined;
}
