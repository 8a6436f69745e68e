// Use case: an account's scans over time across all its codes — totals, a series per interval, the top codes and the device split.
import { dayOf, DEVICE_CLASSES, type DeviceClass, type ScanDay } from '../domain/scan.js';
import type { CodeCursor } from '../domain/ports/dynamic-code-store.js';
import type { DynamicCode } from '../domain/dynamic-code.js';
import { PAGE_SIZE } from './dynamic-codes.js';
import { statsRange, type ScanStatsDeps } from './scan-stats.js';

/** The intervals the account's series is counted in: the ledger keeps days. */
export const ACCOUNT_STATS_INTERVALS = ['day'] as const;
export type AccountStatsInterval = (typeof ACCOUNT_STATS_INTERVALS)[number];
export const TOP_CODES = 10;

const DAY_MS = 86_400_000;

export interface AccountStats {
  from: string;
  to: string;
  interval: AccountStatsInterval;
  /** `uniqueScanners` sums each code's daily unique scanners: one person scanning two codes counts in both. */
  totals: { scans: number; uniqueScanners: number; codesScanned: number };
  /** Every interval of the range, oldest first, zeros included; `at` is its start (ISO 8601, UTC). */
  series: Array<{ at: string; scans: number; uniqueScanners: number }>;
  /** Most scans in the range first (then the newest code), at most TOP_CODES, codes without scans left out. */
  topCodes: Array<{ codeId: string; slug: string; name: string | null; scans: number }>;
  devices: Record<DeviceClass, number>;
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
  const perDay = new Map<string, { scans: number; uniques: number }>();
  const perCode = new Map<string, { code: DynamicCode; scans: number }>();
  const devices = Object.fromEntries(DEVICE_CLASSES.map((d) => [d, 0])) as Record<DeviceClass, number>;
  const count = (code: DynamicCode, day: ScanDay) => {
    const sums = perDay.get(day.day) ?? { scans: 0, uniques: 0 };
    sums.scans += day.scans;
    sums.uniques += day.uniques;
    perDay.set(day.day, sums);
    const byCode = perCode.get(code.id) ?? { code, scans: 0 };
    byCode.scans += day.scans;
    perCode.set(code.id, byCode);
    for (const device of DEVICE_CLASSES) devices[device] += day.devices[device] ?? 0;
  };
  let after: CodeCursor | undefined;
  for (;;) {
    const page = await deps.codes.list(accountId, { limit: PAGE_SIZE.max, after });
    const byId = new Map(page.map((code) => [code.id, code]));
    for (const day of await deps.scanLedger.daysOfCodes([...byId.keys()], dayOf(from), dayOf(to))) count(byId.get(day.codeId)!, day);
    if (page.length < PAGE_SIZE.max) break;
    const last = page.at(-1)!;
    after = { createdAt: last.createdAt, id: last.id };
  }
  const series: AccountStats['series'] = [];
  const totals = { scans: 0, uniqueScanners: 0, codesScanned: 0 };
  for (let at = from.getTime(); at <= to.getTime(); at += DAY_MS) {
    const sums = perDay.get(dayOf(new Date(at)));
    series.push({ at: new Date(at).toISOString(), scans: sums?.scans ?? 0, uniqueScanners: sums?.uniques ?? 0 });
    totals.scans += sums?.scans ?? 0;
    totals.uniqueScanners += sums?.uniques ?? 0;
  }
  const scanned = [...perCode.values()].filter((c) => c.scans > 0);
  totals.codesScanned = scanned.length;
  const topCodes = scanned
    .sort((a, b) => b.scans - a.scans || b.code.createdAt.getTime() - a.code.createdAt.getTime() || a.code.id.localeCompare(b.code.id))
    .slice(0, TOP_CODES)
    .map(({ code, scans }) => ({ codeId: code.id, slug: code.vanity?.slug ?? code.slug, name: code.name, scans }));
  return { from: dayOf(from), to: dayOf(to), interval: query.interval ?? 'day', totals, series, topCodes, devices };
}
