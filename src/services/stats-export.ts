// Use case: scan statistics as CSV rows (a code's day, then its countries and split arms), a page of codes at a time.
import { csvCell } from '../domain/csv-cell.js';
import type { DynamicCode } from '../domain/dynamic-code.js';
import type { CodeCursor } from '../domain/ports/dynamic-code-store.js';
import { dayOf, DEVICE_CLASSES, type ScanDay } from '../domain/scan.js';
import { getCode, PAGE_SIZE } from './dynamic-codes.js';
import { statsRange, type ScanStatsDeps } from './scan-stats.js';

export const STATS_CSV_HEADER = [
  'day',
  'code_id',
  'slug',
  'country',
  'arm',
  'scans',
  'unique_scanners',
  ...DEVICE_CLASSES,
].join(',');

const DAY_MS = 86_400_000;
const NO_DEVICES = DEVICE_CLASSES.map(() => '').join(',');

/**
 * A code's day: its totals row (empty `country` and `arm`), then one row per country and one per split arm with
 * that slice's scans only (uniques and devices are not counted per slice, so their cells stay empty).
 * Ids, slugs and days are letters, digits, `_` and `-`; countries and arms come from stored keys, so they go
 * through csvCell like every cell read from data.
 */
function rows(day: string, code: DynamicCode, counts: ScanDay | undefined): string {
  const devices = DEVICE_CLASSES.map((device) => counts?.devices[device] ?? 0);
  let text = `${[day, code.id, code.slug, '', '', counts?.scans ?? 0, counts?.uniques ?? 0, ...devices].join(',')}\r\n`;
  if (!counts) return text;
  for (const [country, scans] of sortedSlices(counts.countries)) {
    text += `${day},${code.id},${code.slug},${csvCell(country)},,${scans},,${NO_DEVICES}\r\n`;
  }
  for (const [arm, scans] of sortedSlices(counts.arms))
    text += `${day},${code.id},${code.slug},,${csvCell(arm)},${scans},,${NO_DEVICES}\r\n`;
  return text;
}

/** Most scans first, then by name in code-point order: the same bytes for the same counts, whatever the locale. */
function sortedSlices(counts: Record<string, number>): Array<[string, number]> {
  return Object.entries(counts)
    .filter(([, scans]) => scans > 0)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
}

export interface StatsExport {
  /** Resolved before the first byte is sent: a bad range or an unknown code is still a problem document. */
  lines: AsyncIterable<string>;
  from: string;
  to: string;
}

/** One code: every day of the range, zeros included, exactly the days of its JSON statistics. */
export async function codeStatsCsv(
  deps: ScanStatsDeps,
  accountId: string,
  codeId: string,
  range: { from?: string | undefined; to?: string | undefined },
): Promise<StatsExport> {
  const { from, to } = statsRange(deps.clock(), range.from, range.to);
  const code = await getCode(deps, accountId, codeId);
  async function* lines(): AsyncIterable<string> {
    yield `${STATS_CSV_HEADER}\r\n`;
    const stored = new Map((await deps.scanLedger.days(code.id, dayOf(from), dayOf(to))).map((d) => [d.day, d]));
    for (let at = from.getTime(); at <= to.getTime(); at += DAY_MS) {
      const day = dayOf(new Date(at));
      yield rows(day, code, stored.get(day));
    }
  }
  return { lines: lines(), from: dayOf(from), to: dayOf(to) };
}

/** Every code of the account (newest first), each with its days that had scans, read a page of codes at a time. */
export async function accountStatsCsv(
  deps: ScanStatsDeps,
  accountId: string,
  range: { from?: string | undefined; to?: string | undefined },
): Promise<StatsExport> {
  const { from, to } = statsRange(deps.clock(), range.from, range.to);
  async function* lines(): AsyncIterable<string> {
    yield `${STATS_CSV_HEADER}\r\n`;
    let after: CodeCursor | undefined;
    for (;;) {
      const page = await deps.codes.list(accountId, { limit: PAGE_SIZE.max, after });
      for (const code of page) {
        let chunk = '';
        for (const day of await deps.scanLedger.days(code.id, dayOf(from), dayOf(to)))
          chunk += rows(day.day, code, day);
        if (chunk !== '') yield chunk;
      }
      if (page.length < PAGE_SIZE.max) return;
      const last = page.at(-1)!;
      after = { createdAt: last.createdAt, id: last.id };
    }
  }
  return { lines: lines(), from: dayOf(from), to: dayOf(to) };
}
