// The QR Kanji-mode code of each character Shift-JIS carries as JIS X 0208, built from Node's own Shift-JIS decoder.
/**
 * Kanji mode packs one Shift-JIS double-byte character into 13 bits (ISO/IEC 18004 §7.4.6). Node has a
 * Shift-JIS decoder (WHATWG, through ICU) but no encoder, so the reverse map is read off the decoder once.
 *
 * Only JIS X 0208 proper goes in: lead bytes 0x81–0x84, 0x88–0x9F and 0xE0–0xEA. The Windows
 * extensions the WHATWG decoder also knows (NEC row 13 at 0x87, the IBM rows) are refused by glibc's
 * SJIS, which zbar converts with, so those characters stay in byte mode.
 */
const JIS_X_0208_LEADS = [
  [0x81, 0x84],
  [0x88, 0x9f],
  [0xe0, 0xea],
] as const;

/**
 * Codes where the WHATWG decoder (Windows-31J) and JIS X 0208 as glibc and ZXing read it name different
 * characters: 〜 ‖ − ¢ £ ¬ against ～ ∥ － ￠ ￡ ￢; and 0x815F, ＼, which jsQR's table reads as ASCII \.
 * A reader would hand back the other one, so these stay in byte mode.
 */
const AMBIGUOUS_CODES = new Set([0x815f, 0x8160, 0x8161, 0x817c, 0x8191, 0x8192, 0x81ca]);

export type KanjiTable = ReadonlyMap<number, number>;

/** Code point → Shift-JIS code (0x8140–0x9FFC, 0xE040–0xEAA4) for every character Kanji mode can carry exactly. */
export function buildKanjiTable(): KanjiTable {
  const decoder = new TextDecoder('shift_jis');
  const table = new Map<number, number>();
  const pair = new Uint8Array(2);
  for (const [first, last] of JIS_X_0208_LEADS) {
    for (let lead = first; lead <= last; lead++) {
      for (let trail = 0x40; trail <= 0xfc; trail++) {
        const code = (lead << 8) | trail;
        if (trail === 0x7f || AMBIGUOUS_CODES.has(code)) continue;
        pair[0] = lead;
        pair[1] = trail;
        // An unassigned pair decodes to U+FFFD (and its trail byte, when ASCII): never one real character.
        const text = decoder.decode(pair);
        const codePoint = text.codePointAt(0)!;
        if (text.length === 1 && codePoint !== 0xfffd && !table.has(codePoint)) table.set(codePoint, code);
      }
    }
  }
  return table;
}

/** The 13-bit Kanji-mode value of a Shift-JIS code (ISO/IEC 18004 §7.4.6). */
export function kanjiValue(code: number): number {
  const offset = code - (code <= 0x9ffc ? 0x8140 : 0xc140);
  return (offset >> 8) * 0xc0 + (offset & 0xff);
}
