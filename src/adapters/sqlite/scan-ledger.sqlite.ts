// ScanLedger on SQLite: one row per code and UTC day, the device, language, arm, country, city and hour splits as JSON
// objects.
import type { ScanLedger } from '../../domain/ports/scan-ledger.js';
import type { ScanDay } from '../../domain/scan.js';
import type { SqliteDatabase } from './database.js';

export interface ScanDayRow {
  code_id: string;
  day: string;
  scans: number;
  uniques: number;
  devices: string;
  languages: string;
  arms: string;
  bots: number;
  countries: string;
  cities: string;
  hours: string;
  hour_uniques: string;
}

const json = (text: string) => JSON.parse(text) as Record<string, number>;

export function toScanDay(row: ScanDayRow): ScanDay {
  return {
    codeId: row.code_id,
    day: row.day,
    scans: row.scans,
    uniques: row.uniques,
    bots: row.bots,
    devices: json(row.devices),
    languages: json(row.languages),
    arms: json(row.arms),
    countries: json(row.countries),
    cities: json(row.cities),
    hours: json(row.hours),
    hourUniques: json(row.hour_uniques),
  };
}

export function toScanDayRow(day: ScanDay): unknown[] {
  const { devices, languages, arms, countries, cities, hours, hourUniques } = day;
  return [
    day.codeId,
    day.day,
    day.scans,
    day.uniques,
    ...[devices, languages].map((o) => JSON.stringify(o)),
    day.bots,
  ].concat([arms, countries, cities, hours, hourUniques].map((o) => JSON.stringify(o)));
}

export const SCAN_DAY_COLUMNS =
  'code_id, day, scans, uniques, devices, languages, bots, arms, countries, cities, hours, hour_uniques';
export const SCAN_DAY_VALUES = '?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?';
/** Every counted column of a code-day, from the row offered (an upsert's `excluded`). */
export const SCAN_DAY_UPDATE =
  'scans = excluded.scans, uniques = excluded.uniques, devices = excluded.devices, languages = excluded.languages, ' +
  'bots = excluded.bots, arms = excluded.arms, countries = excluded.countries, cities = excluded.cities, ' +
  'hours = excluded.hours, hour_uniques = excluded.hour_uniques';

export class SqliteScanLedger implements ScanLedger {
  readonly #db: SqliteDatabase;
  readonly #put;
  readonly #range;
  readonly #since;
  readonly #eraseDays;
  readonly #eraseVisitors;
  readonly #keepTotals;

  constructor(db: SqliteDatabase) {
    this.#db = db;
    // A day's scan and bot counts only grow: an older snapshot arriving late (a replayed rollup) never moves it back.
    this.#put = db.prepare<unknown[], unknown>(
      `INSERT INTO scan_days (${SCAN_DAY_COLUMNS}) VALUES (${SCAN_DAY_VALUES})
       ON CONFLICT (code_id, day) DO UPDATE SET ${SCAN_DAY_UPDATE}
       WHERE excluded.scans >= scan_days.scans AND excluded.bots >= scan_days.bots`,
    );
    this.#range = db.prepare<[string, string, string], ScanDayRow>(
      `SELECT ${SCAN_DAY_COLUMNS} FROM scan_days WHERE code_id = ? AND day >= ? AND day <= ? ORDER BY day`,
    );
    this.#since = db.prepare<[string, string], { scans: number | null }>(
      'SELECT sum(scans) AS scans FROM scan_days WHERE code_id = ? AND day >= ?',
    );
    // The delete trigger takes each day's scans off the code's all-time count.
    this.#eraseDays = db.prepare<[string], unknown>('DELETE FROM scan_days WHERE code_id = ?');
    this.#eraseVisitors = db.prepare<[string], unknown>('DELETE FROM scan_visitors WHERE code_id = ?');
    // A day with scans always has a device count: an empty one means nothing is left to take.
    this.#keepTotals = db.prepare<[string, string], unknown>(
      `UPDATE scan_days SET uniques = 0, devices = '{}', languages = '{}', arms = '{}', countries = '{}', ` +
        `cities = '{}', hours = '{}', hour_uniques = '{}' WHERE code_id = ? AND day < ? AND devices != '{}'`,
    );
  }

  async keepTotalsBefore(codeIds: readonly string[], beforeDay: string): Promise<number> {
    return this.#db.transaction(() =>
      codeIds.reduce((reduced, codeId) => reduced + this.#keepTotals.run(codeId, beforeDay).changes, 0),
    )();
  }

  async erase(codeId: string): Promise<void> {
    this.#db.transaction(() => {
      this.#eraseDays.run(codeId);
      this.#eraseVisitors.run(codeId);
    })();
  }

  async apply(days: readonly ScanDay[]): Promise<void> {
    this.#db.transaction(() => {
      for (const day of days) this.#put.run(...toScanDayRow(day));
    })();
  }

  async days(codeId: string, fromDay: string, toDay: string): Promise<ScanDay[]> {
    return this.#range.all(codeId, fromDay, toDay).map(toScanDay);
  }

  async daysOfCodes(codeIds: readonly string[], fromDay: string, toDay: string): Promise<ScanDay[]> {
    return codeIds.flatMap((codeId) => this.#range.all(codeId, fromDay, toDay).map(toScanDay));
  }

  async scansSince(codeIds: readonly string[], fromDay: string): Promise<Map<string, number>> {
    const totals = new Map<string, number>();
    for (const codeId of codeIds) {
      const { scans } = this.#since.get(codeId, fromDay)!;
      if (scans !== null) totals.set(codeId, scans);
    }
    return totals;
  }
}
