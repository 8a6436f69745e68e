// Use case: an account's scans over time across all its codes — totals, a series per day or hour, the top codes, the
// device and country splits.
import { invalidField } from '../domain/errors.js';
import { dayOf, DEVICE_CLASSES, type DeviceClass, type ScanDay } from '../domain/scan.js';
import type { CodeCursor } from '../domain/ports/dynamic-code-store.js';
import type { DynamicCode } from '../domain/dynamic-code.js';
import { PAGE_SIZE } from './dynamic-codes.js';
import { HOURLY_MAX_DAYS, STATS_INTERVALS, statsRange, type ScanStatsDeps, type StatsInterval } from './scan-stats.js';

/** The account's series is counted per UTC day or hour, by the same rules as a code's. */
export const ACCOUNT_STATS_INTERVALS = STATS_INTERVALS;
export type AccountStatsInterval = StatsInterval;
export const TOP_CODES = 10;

const DAY_MS = 86_400_000;
const HOURS = Array.from({ length: 24 }, (_, hour) => String(hour).padStart(2, '0'));

/** Scans and uniques summed over codes, for one day and for each of its hours. */
interface Sums {
  scans: number;
  uniques: number;
  hours: Record<string, number>;
  hourUniques: Record<string, number>;
}

function addCounts(into: Record<string, number>, counts: Record<string, number>): void {
  for (const [key, n] of Object.entries(counts)) into[key] = (into[key] ?? 0) + n;
}

export interface AccountStats {
  from: string;
  to: string;
  interval: AccountStatsInterval;
  /**
   * `uniqueScanners` sums each code's daily unique scanners: one person scanning two codes counts in both. `bots`:
   * crawlers and link previews, never in `scans`.
   */
  totals: { scans: number; uniqueScanners: number; bots: number; codesScanned: number };
  /**
   * Every day (or hour) of the range, oldest first, zeros included; `at` is its start (ISO 8601, UTC). An hour's
   * `uniqueScanners` are those first seen that day in that hour, so the hours of a day add up to the day's.
   */
  series: Array<{ at: string; scans: number; uniqueScanners: number }>;
  /** Most scans in the range first (then the newest code), at most TOP_CODES, codes without scans left out. */
  topCodes: Array<{ codeId: string; slug: string; name: string | null; scans: number }>;
  devices: Record<DeviceClass, number>;
  /** ISO 3166-1 alpha-2 code (`other`: not placed) → scans. */
  countries: Record<string, number>;
}

/**
 * Reads the account's codes a page at a time (one ledger read per page), so the work is bounded by the plan's code
 * limit and the range, never by how many scans there were.
 */
export async function accountStats(
  deps: ScanStatsDeps,
  accountId: string,
  query: { from?: string | undefined; to?: string | undefined; interval?: AccountStatsInterval | undefined },
): Promise<AccountStats> {
  const { from, to } = statsRange(deps.clock(), query.from, query.to);
  const interval = query.interval ?? 'day';
  if (interval === 'hour' && (to.getTime() - from.getTime()) / DAY_MS + 1 > HOURLY_MAX_DAYS) {
    throw invalidField('from', `an hourly series may span at most ${HOURLY_MAX_DAYS} days`);
  }
  const perDay = new Map<string, Sums>();
  const perCode = new Map<string, { code: DynamicCode; scans: number }>();
  const devices = Object.fromEntries(DEVICE_CLASSES.map((d) => [d, 0])) as Record<DeviceClass, number>;
  const countries: Record<string, number> = {};
  let bots = 0;
  const count = (code: DynamicCode, day: ScanDay) => {
    const sums = perDay.get(day.day) ?? { scans: 0, uniques: 0, hours: {}, hourUniques: {} };
    sums.scans += day.scans;
    sums.uniques += day.uniques;
    addCounts(sums.hours, day.hours);
    addCounts(sums.hourUniques, day.hourUniques);
    perDay.set(day.day, sums);
    const byCode = perCode.get(code.id) ?? { code, scans: 0 };
    byCode.scans += day.scans;
    perCode.set(code.id, byCode);
    for (const device of DEVICE_CLASSES) devices[device] += day.devices[device] ?? 0;
    addCounts(countries, day.countries);
    bots += day.bots;
  };
  let after: CodeCursor | undefined;
  for (;;) {
    const page = await deps.codes.list(accountId, { limit: PAGE_SIZE.max, after });
    const byId = new Map(page.map((code) => [code.id, code]));
    for (const day of await deps.scanLedger.daysOfCodes([...byId.keys()], dayOf(from), dayOf(to)))
      count(byId.get(day.codeId)!, day);
    if (page.length < PAGE_SIZE.max) break;
    const last = page.at(-1)!;
    after = { createdAt: last.createdAt, id: last.id };
  }
  const series: AccountStats['series'] = [];
  const totals = { scans: 0, uniqueScanners: 0, bots, codesScanned: 0 };
  for (let at = from.getTime(); at <= to.getTime(); at += DAY_MS) {
    const sums = perDay.get(dayOf(new Date(at)));
    const start = new Date(at).toISOString();
    if (interval === 'day') series.push({ at: start, scans: sums?.scans ?? 0, uniqueScanners: sums?.uniques ?? 0 });
    else {
      HOURS.forEach((hour, i) => {
        const hourStart = new Date(at + i * 3_600_000).toISOString();
        series.push({ at: hourStart, scans: sums?.hours[hour] ?? 0, uniqueScanners: sums?.hourUniques[hour] ?? 0 });
      });
    }
    totals.scans += sums?.scans ?? 0;
    totals.uniqueScanners += sums?.uniques ?? 0;
  }
  const scanned = [...perCode.values()].filter((c) => c.scans > 0);
  totals.codesScanned = scanned.length;
  const topCodes = scanned
    .sort(
      (a, b) =>
        b.scans - a.scans ||
        b.code.createdAt.getTime() - a.code.createdAt.getTime() ||
        a.code.id.localeCompare(b.code.id),
    )
    .slice(0, TOP_CODES)
    .map(({ code, scans }) => ({ codeId: code.id, slug: code.vanity?.slug ?? code.slug, name: code.name, scans }));
  return { from: dayOf(from), to: dayOf(to), interval, totals, series, topCodes, devices, countries };
}
