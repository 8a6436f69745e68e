// ScanLedger on SQLite: one row per code and UTC day, device and language splits as JSON objects.
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
}

export function toScanDay(row: ScanDayRow): ScanDay {
  return {
    codeId: row.code_id,
    day: row.day,
    scans: row.scans,
    uniques: row.uniques,
    devices: JSON.parse(row.devices) as ScanDay['devices'],
    languages: JSON.parse(row.languages) as ScanDay['languages'],
    arms: JSON.parse(row.arms) as ScanDay['arms'],
  };
}

export function toScanDayRow(day: ScanDay): unknown[] {
  return [day.codeId, day.day, day.scans, day.uniques, JSON.stringify(day.devices), JSON.stringify(day.languages), JSON.stringify(day.arms)];
}

export const SCAN_DAY_COLUMNS = 'code_id, day, scans, uniques, devices, languages, arms';

export class SqliteScanLedger implements ScanLedger {
  readonly #db: SqliteDatabase;
  readonly #put;
  readonly #range;
  readonly #since;

  constructor(db: SqliteDatabase) {
    this.#db = db;
    // A day's scan count only grows: an older snapshot arriving late (a replayed rollup) never moves it back.
    this.#put = db.prepare<unknown[], unknown>(
      `INSERT INTO scan_days (${SCAN_DAY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (code_id, day) DO UPDATE SET scans = excluded.scans, uniques = excluded.uniques, devices = excluded.devices,
         languages = excluded.languages, arms = excluded.arms
       WHERE excluded.scans >= scan_days.scans`,
    );
    this.#range = db.prepare<[string, string, string], ScanDayRow>(
      `SELECT ${SCAN_DAY_COLUMNS} FROM scan_days WHERE code_id = ? AND day >= ? AND day <= ? ORDER BY day`,
    );
    this.#since = db.prepare<[string, string], { scans: number | null }>('SELECT sum(scans) AS scans FROM scan_days WHERE code_id = ? AND day >= ?');
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
