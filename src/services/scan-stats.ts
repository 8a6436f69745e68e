// Use case: a dynamic code's scans per day or hour over a date range, with totals (bots apart) and the device, country,
// city, language and split-arm counts.
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

export const STATS_INTERVALS = ['day', 'hour'] as const;
export type StatsInterval = (typeof STATS_INTERVALS)[number];
/** An hourly series spans at most this many days (24 points a day). */
export const HOURLY_MAX_DAYS = 31;
export const TOP_CITIES = 50;

export interface CodeStats {
  codeId: string;
  from: string;
  to: string;
  interval: StatsInterval;
  totals: { scans: number; uniqueScanners: number; bots: number };
  /**
   * Every day (or hour) of the range, oldest first, zeros included; `at` is its start (ISO 8601, UTC). An hour's
   * `uniqueScanners` are those first seen that day in that hour, so the hours of a day add up to the day's.
   */
  series: Array<{ at: string; scans: number; uniqueScanners: number }>;
  devices: Record<DeviceClass, number>;
  /** ISO 3166-1 alpha-2 code (`other`: not placed) → scans. */
  countries: Record<string, number>;
  /** Only with a city database: most scans first, at most TOP_CITIES. */
  cities?: Array<{ country: string; region: string | null; city: string; scans: number }>;
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
export async function scanSummaries(
  deps: Pick<ScanStatsDeps, 'scanLedger' | 'clock'>,
  codes: readonly DynamicCode[],
): Promise<Map<string, ScanSummary>> {
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
  if (!DAY.test(value) || Number.isNaN(at.getTime()) || dayOf(at) !== value)
    throw invalidField(field, 'a date as YYYY-MM-DD');
  return at;
}

/** The range asked for, or the last 30 days up to today (UTC). */
export function statsRange(today: Date, from: string | undefined, to: string | undefined): { from: Date; to: Date } {
  const end = to === undefined ? parsedDay('to', dayOf(today)) : parsedDay('to', to);
  const start =
    from === undefined ? new Date(end.getTime() - (STATS_DEFAULT_DAYS - 1) * DAY_MS) : parsedDay('from', from);
  if (start > end) throw invalidField('from', 'must not be after `to`');
  if ((end.getTime() - start.getTime()) / DAY_MS + 1 > STATS_MAX_DAYS)
    throw invalidField('from', `the range may span at most ${STATS_MAX_DAYS} days`);
  return { from: start, to: end };
}

export async function codeStats(
  deps: ScanStatsDeps,
  accountId: string,
  codeId: string,
  range: { from?: string | undefined; to?: string | undefined; interval?: StatsInterval | undefined },
): Promise<CodeStats> {
  const { from, to } = statsRange(deps.clock(), range.from, range.to);
  const interval = range.interval ?? 'day';
  if (interval === 'hour' && (to.getTime() - from.getTime()) / DAY_MS + 1 > HOURLY_MAX_DAYS) {
    throw invalidField('from', `an hourly series may span at most ${HOURLY_MAX_DAYS} days`);
  }
  const code = await getCode(deps, accountId, codeId);
  const stored = new Map((await deps.scanLedger.days(code.id, dayOf(from), dayOf(to))).map((day) => [day.day, day]));
  const devices = Object.fromEntries(DEVICE_CLASSES.map((d) => [d, 0])) as Record<DeviceClass, number>;
  const languages = new Map<string, number>();
  const arms: Record<string, number> = {};
  const series: CodeStats['series'] = [];
  const totals = { scans: 0, uniqueScanners: 0, bots: 0 };
  const countries: Record<string, number> = {};
  const cities = new Map<string, number>();
  for (let at = from.getTime(); at <= to.getTime(); at += DAY_MS) {
    const day = dayOf(new Date(at));
    const counts = stored.get(day);
    if (interval === 'day')
      series.push({ at: new Date(at).toISOString(), scans: counts?.scans ?? 0, uniqueScanners: counts?.uniques ?? 0 });
    else {
      for (let hour = 0; hour < 24; hour++) {
        const key = String(hour).padStart(2, '0');
        const start = new Date(at + hour * 3_600_000).toISOString();
        series.push({ at: start, scans: counts?.hours[key] ?? 0, uniqueScanners: counts?.hourUniques[key] ?? 0 });
      }
    }
    if (!counts) continue;
    for (const [city, scans] of Object.entries(counts.cities)) cities.set(city, (cities.get(city) ?? 0) + scans);
    totals.scans += counts.scans;
    totals.uniqueScanners += counts.uniques;
    totals.bots += counts.bots;
    for (const [country, scans] of Object.entries(counts.countries))
      countries[country] = (countries[country] ?? 0) + scans;
    for (const device of DEVICE_CLASSES) devices[device] += counts.devices[device] ?? 0;
    for (const [language, scans] of Object.entries(counts.languages))
      languages.set(language, (languages.get(language) ?? 0) + scans);
    for (const [arm, scans] of Object.entries(counts.arms)) arms[arm] = (arms[arm] ?? 0) + scans;
  }
  return {
    codeId: code.id,
    from: dayOf(from),
    to: dayOf(to),
    interval,
    totals,
    series,
    devices,
    countries,
    ...(cities.size === 0 ? {} : { cities: topCities(cities) }),
    languages: [...languages]
      .map(([language, scans]) => ({ language, scans }))
      .sort((a, b) => b.scans - a.scans || a.language.localeCompare(b.language)),
    arms,
    uniqueScanners: {
      counting: deps.uniqueCounting,
      relativeStandardError: deps.uniqueCounting === 'hyperloglog' ? 0.0081 : 0,
    },
  };
}

/** `country|region|city` keys (see cityKey) as records, most scans first. */
function topCities(cities: ReadonlyMap<string, number>): NonNullable<CodeStats['cities']> {
  return [...cities]
    .map(([key, scans]) => {
      const [country = '', region = '', ...city] = key.split('|');
      return { country, region: region === '' ? null : region, city: city.join('|'), scans };
    })
    .sort((a, b) => b.scans - a.scans || a.city.localeCompare(b.city))
    .slice(0, TOP_CITIES);
}
