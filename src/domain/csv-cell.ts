// One CSV cell as every file we write spells it: RFC 4180 quoting, and formula-looking text neutralised for spreadsheets.

/** A leading character a spreadsheet would read as a formula (or a DDE call) when the file is opened (OWASP "CSV injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** Always quoted, quotes doubled; text beginning with `= + - @`, a tab or a CR gets a leading `'` so it stays text. */
export function csvCell(value: string | number | undefined): string {
  const text = String(value ?? '');
  const safe = typeof value === 'string' && FORMULA_START.test(text) ? `'${text}` : text;
  return `"${safe.replaceAll('"', '""')}"`;
}
