// One CSV cell as every file we write spells it: RFC 4180 quoting, and formula-looking text neutralised for
// spreadsheets.

/**
 * What a spreadsheet may read as a formula or a DDE call (OWASP "CSV injection"): a first character `= + - @` once
 * NFKC-normalised (so the full-width `＝ ＋ － ＠` and small `﹦ ﹢ ﹣ ﹫` count too), or any first character a reader
 * cannot see or a spreadsheet skips: whitespace (space, tab, CR, LF…), controls (NUL…), zero-width and other format
 * characters, behind which a formula would hide.
 */
const FORMULA_START = /^[=+\-@\u2212]/u;
const HIDDEN_START = /^[\s\p{Cc}\p{Cf}]/u;

/** Looks at the first code point only (normalised alone), so the check is constant work whatever the cell's length. */
export function looksLikeFormula(text: string): boolean {
  const first = text.codePointAt(0);
  if (first === undefined) return false;
  const head = String.fromCodePoint(first);
  return HIDDEN_START.test(head) || FORMULA_START.test(head.normalize('NFKC'));
}

/** Always quoted, quotes doubled; text that looks like a formula (above) gets a leading `'` so it stays text. */
export function csvCell(value: string | number | undefined): string {
  const text = String(value ?? '');
  const safe = typeof value === 'string' && looksLikeFormula(text) ? `'${text}` : text;
  return `"${safe.replaceAll('"', '""')}"`;
}
