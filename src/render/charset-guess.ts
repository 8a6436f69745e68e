// Which charset zbar and ZXing take byte-mode data to be when no ECI names it, so the encoder only picks bytes they read back.
/**
 * Without an ECI, byte mode's charset is whatever the reader guesses:
 * - ZXing (StringUtils.guessEncoding, ported as is below): UTF-8 if the bytes are valid multi-byte UTF-8;
 *   Shift-JIS on three double-byte or katakana characters in a row; between ISO-8859-1 and Shift-JIS a
 *   crude vote; then the first charset the bytes can be.
 * - zbar (qrdectxt.c): one byte run at a time (runs of byte and Kanji segments merged); Shift-JIS first
 *   when the symbol has a Kanji segment; else UTF-8 first for ASCII and Big5 first when the bytes look
 *   like Big5; else Shift-JIS, ISO-8859-1 (last on any 0x80–0x9F byte), Big5, UTF-8, keeping the first
 *   that converts.
 * So "café" is safe in ISO-8859-1 and "éa" is not (a valid Shift-JIS kanji, read as such by zbar).
 */
export type GuessedCharset = 'utf8' | 'shift_jis' | 'latin1' | 'unknown';

/** ZXing's guess for a run of bytes. */
export function zxingGuess(bytes: Uint8Array): GuessedCharset {
  let canBeLatin1 = true;
  let canBeShiftJis = true;
  let canBeUtf8 = true;
  let utf8BytesLeft = 0;
  let utf8Multibyte = 0;
  let sjisBytesLeft = 0;
  let sjisKatakana = 0;
  let katakanaRun = 0;
  let doubleByteRun = 0;
  let maxKatakanaRun = 0;
  let maxDoubleByteRun = 0;
  let latin1HighOther = 0;
  for (const value of bytes) {
    if (canBeUtf8) {
      if (utf8BytesLeft > 0) {
        if ((value & 0x80) === 0) canBeUtf8 = false;
        else utf8BytesLeft--;
      } else if (value & 0x80) {
        if ((value & 0x40) === 0) canBeUtf8 = false;
        else if ((value & 0x20) === 0) {
          utf8BytesLeft = 1;
          utf8Multibyte++;
        } else if ((value & 0x10) === 0) {
          utf8BytesLeft = 2;
          utf8Multibyte++;
        } else if ((value & 0x08) === 0) {
          utf8BytesLeft = 3;
          utf8Multibyte++;
        } else canBeUtf8 = false;
      }
    }
    if (canBeLatin1) {
      if (value > 0x7f && value < 0xa0) canBeLatin1 = false;
      else if (value > 0x9f && (value < 0xc0 || value === 0xd7 || value === 0xf7)) latin1HighOther++;
    }
    if (canBeShiftJis) {
      if (sjisBytesLeft > 0) {
        if (value < 0x40 || value === 0x7f || value > 0xfc) canBeShiftJis = false;
        else sjisBytesLeft--;
      } else if (value === 0x80 || value === 0xa0 || value > 0xef) canBeShiftJis = false;
      else if (value > 0xa0 && value < 0xe0) {
        sjisKatakana++;
        doubleByteRun = 0;
        maxKatakanaRun = Math.max(maxKatakanaRun, ++katakanaRun);
      } else if (value > 0x7f) {
        sjisBytesLeft++;
        katakanaRun = 0;
        maxDoubleByteRun = Math.max(maxDoubleByteRun, ++doubleByteRun);
      } else katakanaRun = doubleByteRun = 0;
    }
  }
  if (utf8BytesLeft > 0) canBeUtf8 = false;
  if (sjisBytesLeft > 0) canBeShiftJis = false;
  if (canBeUtf8 && utf8Multibyte > 0) return 'utf8';
  if (canBeShiftJis && (maxKatakanaRun >= 3 || maxDoubleByteRun >= 3)) return 'shift_jis';
  if (canBeLatin1 && canBeShiftJis) return (maxKatakanaRun === 2 && sjisKatakana === 2) || latin1HighOther * 10 >= bytes.length ? 'shift_jis' : 'latin1';
  if (canBeLatin1) return 'latin1';
  if (canBeShiftJis) return 'shift_jis';
  if (canBeUtf8) return 'utf8';
  return 'unknown';
}

/** zbar's text_is_big5: when it holds, zbar converts from Big5 before anything else. */
function looksLikeBig5(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 0xff) return false;
    if (b < 0x80) continue;
    const trail = bytes[++i];
    if (trail === undefined || trail < 0x40 || (trail > 0x7e && trail < 0xa1) || trail > 0xfe) return false;
  }
  return true;
}

/** The first byte of each double-byte pair, pairing as zbar's text_is_big5 does. */
function leadBytes(bytes: Uint8Array): number[] {
  const leads: number[] = [];
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0x80) leads.push(bytes[i++]!);
  return leads;
}

/** ZXing's structural Shift-JIS test; it also rejects the lead bytes above 0xEF that glibc's SJIS has no characters for. */
function couldBeShiftJis(bytes: Uint8Array): boolean {
  let trailBytesDue = 0;
  for (const b of bytes) {
    if (trailBytesDue > 0) {
      if (b < 0x40 || b === 0x7f || b > 0xfc) return false;
      trailBytesDue--;
    } else if (b === 0x80 || b === 0xa0 || b > 0xef) return false;
    else if (b > 0x7f && (b < 0xa1 || b > 0xdf)) trailBytesDue++;
  }
  return trailBytesDue === 0;
}

/** Whether iconv could convert the bytes from this charset: the WHATWG decoders accept a superset of glibc's. */
function converts(bytes: Uint8Array, charset: 'big5' | 'shift_jis'): boolean {
  try {
    new TextDecoder(charset, { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** zbar's order for a byte run in a symbol without Kanji segments: the first charset it tries that converts it. */
function zbarGuessWithoutKanji(bytes: Uint8Array): GuessedCharset {
  if (bytes.every((b) => b < 0x80)) return 'utf8';
  // Only right for Big5, which we never write. glibc's BIG-5 has lead bytes 0xA1–0xF9 only (WHATWG adds HKSCS around them).
  if (looksLikeBig5(bytes) && leadBytes(bytes).every((b) => b >= 0xa1 && b <= 0xf9) && converts(bytes, 'big5')) return 'unknown';
  // glibc's SJIS has no user-defined area (lead bytes 0xF0–0xF9) that WHATWG's decoder accepts.
  if (couldBeShiftJis(bytes) && converts(bytes, 'shift_jis')) return 'shift_jis';
  return bytes.some((b) => b >= 0x80 && b < 0xa0) ? 'unknown' : 'latin1';
}

/**
 * Whether both readers take these byte runs (each run as zbar converts it, all of them together as ZXing
 * guesses) in `charset`. Runs of ASCII alone read the same in every charset and need no check.
 */
export function readersTakeRunsAs(charset: 'latin1' | 'shift_jis', runs: Uint8Array[], hasKanjiSegments: boolean): boolean {
  const nonAscii = runs.filter((run) => run.some((b) => b >= 0x80));
  if (nonAscii.length === 0) return true;
  const zbarOk = nonAscii.every((run) => (hasKanjiSegments ? charset === 'shift_jis' : zbarGuessWithoutKanji(run) === charset));
  return zbarOk && zxingGuess(Uint8Array.from(nonAscii.flatMap((run) => [...run]))) === charset;
}
