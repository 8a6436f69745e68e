// Use case: scan statistics as CSV rows (one per code and day), produced a page of codes at a time so an export streams.
import type { DynamicCode } from '../domain/dynamic-code.js';
import type { CodeCursor } from '../domain/ports/dynamic-code-store.js';
import { dayOf, DEVICE_CLASSES, type ScanDay } from '../domain/scan.js';
import { getCode, PAGE_SIZE } from './dynamic-codes.js';
import { statsRange, type ScanStatsDeps } from './scan-stats.js';

export const STATS_CSV_HEADER = ['day', 'code_id', 'slug', 'scans', 'unique_scanners', ...DEVICE_CLASSES].join(',');

const DAY_MS = 86_400_000;

/** Ids, slugs and days are letters, digits, `_` and `-`: nothing in a row needs quoting or could be read as a formula. */
function row(day: string, code: DynamicCode, counts: ScanDay | undefined): string {
  const devices = DEVICE_CLASSES.map((device) => counts?.devices[device] ?? 0);
  return [day, code.id, code.slug, counts?.scans ?? 0, counts?.uniques ?? 0, ...devices].join(',');
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
      yield `${row(day, code, stored.get(day))}\r\n`;
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
        for (const day of await deps.scanLedger.days(code.id, dayOf(from), dayOf(to))) chunk += `${row(day.day, code, day)}\r\n`;
        if (chunk !== '') yield chunk;
      }
      if (page.length < PAGE_SIZE.max) return;
      const last = page.at(-1)!;
      after = { createdAt: last.createdAt, id: last.id };
    }
  }
  return { lines: lines(), from: dayOf(from), to: dayOf(to) };
}
