// Splits a payload into the QR segments (numeric, alphanumeric, byte, Kanji) that take the fewest bits.
/**
 * A shortest path over the characters, as in Nayuki's QR Code generator ("optimal segment mode
 * switching") and ZXing's MinimalEncoder: costs in sixths of a bit (numeric 10/3, alphanumeric 11/2,
 * byte 8 per byte, Kanji 13 per character), a segment header (mode and count) at each switch, and a
 * segment's cost rounded up to whole bits when it ends — which makes the total exact, not estimated.
 */

export type SegmentMode = 'numeric' | 'alphanumeric' | 'byte' | 'kanji';

/** How characters in byte segments become bytes; one charset per symbol, because readers guess one per symbol. */
export type ByteCharset = 'utf8' | 'latin1' | 'shift_jis' | 'ascii';

export interface Segment {
  mode: SegmentMode;
  /** The characters of the segment, as code points. */
  codePoints: number[];
}

export interface SegmentPlan {
  segments: Segment[];
  /** Data bits of every segment with its header (ECI header not included). */
  bits: number;
}

export interface PlanOptions {
  charset: ByteCharset;
  /**
   * Code point → Shift-JIS code, or undefined when Kanji mode is not allowed in this plan (required for shift_jis
   * bytes).
   */
  kanji: ReadonlyMap<number, number> | undefined;
  /** Character-count bits per mode for the version range being planned (ISO/IEC 18004 Table 3). */
  countBits: Record<SegmentMode, number>;
}

const MODES: readonly SegmentMode[] = ['numeric', 'alphanumeric', 'byte', 'kanji'];
const NUMERIC = 0;
const ALPHANUMERIC = 1;
const BYTE = 2;
const KANJI = 3;

export const ALPHANUMERIC_CHARS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:';

/** Character-count bits by version range 1–9, 10–26, 27–40 (ISO/IEC 18004 Table 3). */
export const COUNT_BITS: ReadonlyArray<Record<SegmentMode, number>> = [
  { numeric: 10, alphanumeric: 9, byte: 8, kanji: 8 },
  { numeric: 12, alphanumeric: 11, byte: 16, kanji: 10 },
  { numeric: 14, alphanumeric: 13, byte: 16, kanji: 12 },
];

export function isAlphanumeric(codePoint: number): boolean {
  return codePoint < 0x80 && ALPHANUMERIC_CHARS.includes(String.fromCharCode(codePoint));
}

const HALFWIDTH_KATAKANA = [0xff61, 0xff9f] as const;
const YEN_IN_JIS_ROMAN = 0x5c;
const OVERLINE_IN_JIS_ROMAN = 0x7e;

/** The Shift-JIS byte of a half-width katakana (0xA1–0xDF), or undefined. */
export function halfwidthKatakanaByte(codePoint: number): number | undefined {
  return codePoint >= HALFWIDTH_KATAKANA[0] && codePoint <= HALFWIDTH_KATAKANA[1]
    ? codePoint - 0xff61 + 0xa1
    : undefined;
}

/** Bytes one character takes in byte mode under a charset, or 0 when the charset cannot carry it. */
export function byteLength(codePoint: number, charset: ByteCharset, kanji?: ReadonlyMap<number, number>): number {
  // Beside Kanji, byte runs are read as Shift-JIS, where (to glibc, so zbar) 0x5C and 0x7E are ¥ and ‾: \\ and ~ cannot
  // go.
  if (kanji && (codePoint === YEN_IN_JIS_ROMAN || codePoint === OVERLINE_IN_JIS_ROMAN)) return 0;
  if (charset === 'shift_jis' && codePoint >= 0x80)
    return halfwidthKatakanaByte(codePoint) !== undefined ? 1 : kanji?.has(codePoint) ? 2 : 0;
  if (codePoint < 0x80) return 1;
  if (charset === 'ascii') return 0;
  if (charset === 'latin1') return codePoint <= 0xff ? 1 : 0;
  return codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
}

const UNREACHABLE = Number.POSITIVE_INFINITY;

/** The cheapest segments for these characters, or undefined when the charset cannot carry some character. */
export function planSegments(codePoints: readonly number[], options: PlanOptions): SegmentPlan | undefined {
  const n = codePoints.length;
  if (n === 0) return { segments: [], bits: 0 };
  const header = MODES.map((mode) => (4 + options.countBits[mode]) * 6);
  // cameFrom[i * 4 + m]: the mode character i is in when the path is in state m after it.
  const cameFrom = new Int8Array(n * 4);
  let previous = header.slice();
  for (let i = 0; i < n; i++) {
    const c = codePoints[i]!;
    const current = [UNREACHABLE, UNREACHABLE, UNREACHABLE, UNREACHABLE];
    const bytes = byteLength(c, options.charset, options.kanji);
    if (bytes > 0) current[BYTE] = previous[BYTE]! + bytes * 48;
    if (isAlphanumeric(c)) current[ALPHANUMERIC] = previous[ALPHANUMERIC]! + 33;
    if (c >= 0x30 && c <= 0x39) current[NUMERIC] = previous[NUMERIC]! + 20;
    if (options.kanji?.has(c)) current[KANJI] = previous[KANJI]! + 78;
    for (let m = 0; m < 4; m++) cameFrom[i * 4 + m] = m;
    // Or end the segment of mode `from` here and open a `to` segment for the next character.
    const continued = current.slice();
    for (let to = 0; to < 4; to++) {
      for (let from = 0; from < 4; from++) {
        if (from === to || continued[from] === UNREACHABLE) continue;
        const switched = Math.ceil(continued[from]! / 6) * 6 + header[to]!;
        if (switched < current[to]!) {
          current[to] = switched;
          cameFrom[i * 4 + to] = from;
        }
      }
    }
    if (current.every((cost) => cost === UNREACHABLE)) return undefined;
    previous = current;
  }
  let state = 0;
  for (let m = 1; m < 4; m++) if (previous[m]! < previous[state]!) state = m;
  const modeOf = new Int8Array(n);
  for (let i = n - 1; i >= 0; i--) {
    state = cameFrom[i * 4 + state]!;
    modeOf[i] = state;
  }
  const segments: Segment[] = [];
  for (let i = 0; i < n; i++) {
    const last = segments[segments.length - 1];
    if (last && last.mode === MODES[modeOf[i]!]) last.codePoints.push(codePoints[i]!);
    else segments.push({ mode: MODES[modeOf[i]!]!, codePoints: [codePoints[i]!] });
  }
  return { segments, bits: segments.reduce((sum, s) => sum + segmentBits(s, options), 0) };
}

/** Exact bits of one segment with its mode indicator and character count. */
export function segmentBits(segment: Segment, options: PlanOptions): number {
  const n = segment.codePoints.length;
  const head = 4 + options.countBits[segment.mode];
  switch (segment.mode) {
    case 'numeric':
      return head + 10 * Math.floor(n / 3) + [0, 4, 7][n % 3]!;
    case 'alphanumeric':
      return head + 11 * Math.floor(n / 2) + 6 * (n % 2);
    case 'kanji':
      return head + 13 * n;
    case 'byte':
      return head + 8 * segment.codePoints.reduce((sum, c) => sum + byteLength(c, options.charset, options.kanji), 0);
  }
}
