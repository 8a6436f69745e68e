// Use case: a dynamic code's scans per day over a date range, with totals and the device and language splits.
import { invalidField } from '../domain/errors.js';
import type { ScanLedger } from '../domain/ports/scan-ledger.js';
import { dayOf, DEVICE_CLASSES, type DeviceClass } from '../domain/scan.js';
import type { DynamicCode } from '../domain/dynamic-code.js';
import { getCode, type DynamicCodeDeps } from './dynamic-codes.js';

/**
 * How unique scanners are counted: `exact` (embedded default: each day's salted visitor digests, kept
 * until the next day) or `hyperloglog` (Redis: one HyperLogLog per code per day, standard error 0.81%).
 */
export type UniqueCounting = 'exact' | 'hyperloglog';

export interface ScanStatsDeps extends DynamicCodeDeps {
  scanLedger: ScanLedger;
  uniqueCounting: UniqueCounting;
}

export const STATS_DEFAULT_DAYS = 30;
export const STATS_MAX_DAYS = 366;
const DAY_MS = 86_400_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export interface CodeStats {
  codeId: string;
  from: string;
  to: string;
  totals: { scans: number; uniqueScanners: number; bots: number };
  /** Every day of the range, oldest first, zeros included. */
  days: Array<{ day: string; scans: number; uniqueScanners: number }>;
  devices: Record<DeviceClass, number>;
  /** ISO 3166-1 alpha-2 code (`other`: not placed) → scans. */
  countries: Record<string, number>;
  /** Most scans first. */
  languages: Array<{ language: string; scans: number }>;
  /** Scans per weighted-split arm (`default:0`, `rules[2]:1`) over the range; empty when no split sent any. */
  arms: Record<string, number>;
  uniqueScanners: { counting: UniqueCounting; relativeStandardError: number };
}

/** What a code's read and every list show of its scans. */
export interface ScanSummary {
  allTime: number;
  /** The last 30 days up to today (UTC), today included: the default range of the statistics. */
  last30Days: number;
}

/** The scan summary of each code given, by id: one ledger read for a whole page. */
export async function scanSummaries(deps: Pick<ScanStatsDeps, 'scanLedger' | 'clock'>, codes: readonly DynamicCode[]): Promise<Map<string, ScanSummary>> {
  const fromDay = dayOf(new Date(deps.clock().getTime() - (STATS_DEFAULT_DAYS - 1) * DAY_MS));
  const recent =
    codes.length === 0
      ? new Map<string, number>()
      : await deps.scanLedger.scansSince(
          codes.map((code) => code.id),
          fromDay,
        );
  return new Map(codes.map((code) => [code.id, { allTime: code.scans, last30Days: recent.get(code.id) ?? 0 }]));
}

function parsedDay(field: string, value: string): Date {
  const at = new Date(`${value}T00:00:00Z`);
  if (!DAY.test(value) || Number.isNaN(at.getTime()) || dayOf(at) !== value) throw invalidField(field, 'a date as YYYY-MM-DD');
  return at;
}

/** The range asked for, or the last 30 days up to today (UTC). */
export function statsRange(today: Date, from: string | undefined, to: string | undefined): { from: Date; to: Date } {
  const end = to === undefined ? parsedDay('to', dayOf(today)) : parsedDay('to', to);
  const start = from === undefined ? new Date(end.getTime() - (STATS_DEFAULT_DAYS - 1) * DAY_MS) : parsedDay('from', from);
  if (start > end) throw invalidField('from', 'must not be after `to`');
  if ((end.getTime() - start.getTime()) / DAY_MS + 1 > STATS_MAX_DAYS) throw invalidField('from', `the range may span at most ${STATS_MAX_DAYS} days`);
  return { from: start, to: end };
}

export async function codeStats(
  deps: ScanStatsDeps,
  accountId: string,
  codeId: string,
  range: { from?: string | undefined; to?: string | undefined },
): Promise<CodeStats> {
  const { from, to } = statsRange(deps.clock(), range.from, range.to);
  const code = await getCode(deps, accountId, codeId);
  const stored = new Map((await deps.scanLedger.days(code.id, dayOf(from), dayOf(to))).map((day) => [day.day, day]));
  const devices = Object.fromEntries(DEVICE_CLASSES.map((d) => [d, 0])) as Record<DeviceClass, number>;
  const languages = new Map<string, number>();
  const arms: Record<string, number> = {};
  const days: CodeStats['days'] = [];
  const totals = { scans: 0, uniqueScanners: 0, bots: 0 };
  const countries: Record<string, number> = {};
  for (let at = from.getTime(); at <= to.getTime(); at += DAY_MS) {
    const day = dayOf(new Date(at));
    const counts = stored.get(day);
    days.push({ day, scans: counts?.scans ?? 0, uniqueScanners: counts?.uniques ?? 0 });
    if (!counts) continue;
    totals.scans += counts.scans;
    totals.uniqueScanners += counts.uniques;
    totals.bots += counts.bots;
    for (const [country, scans] of Object.entries(counts.countries)) countries[country] = (countries[country] ?? 0) + scans;
    for (const device of DEVICE_CLASSES) devices[device] += counts.devices[device] ?? 0;
    for (const [language, scans] of Object.entries(counts.languages)) languages.set(language, (languages.get(language) ?? 0) + scans);
    for (const [arm, scans] of Object.entries(counts.arms)) arms[arm] = (arms[arm] ?? 0) + scans;
  }
  return {
    codeId: code.id,
    from: dayOf(from),
    to: dayOf(to),
    totals,
    days,
    devices,
    countries,
    languages: [...languages].map(([language, scans]) => ({ language, scans })).sort((a, b) => b.scans - a.scans || a.language.localeCompare(b.language)),
    arms,
    uniqueScanners: { counting: deps.uniqueCounting, relativeStandardError: deps.uniqueCounting === 'hyperloglog' ? 0.0081 : 0 },
  };
}
