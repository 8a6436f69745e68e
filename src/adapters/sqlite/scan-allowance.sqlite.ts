// ScanAllowance on SQLite: one conditional upsert per scan of a code with a scan limit.
import type { ScanAllowance } from '../../domain/ports/scan-allowance.js';
import type { SqliteDatabase } from './database.js';

export class SqliteScanAllowance implements ScanAllowance {
  readonly #take;

  constructor(db: SqliteDatabase) {
    // The WHERE of the upsert keeps the count at the limit: past it no row changes and nothing is returned.
    this.#take = db.prepare<[{ code: string; max: number }], { taken: number }>(
      `INSERT INTO code_scan_allowance (code_id, taken) VALUES (@code, 1)
       ON CONFLICT (code_id) DO UPDATE SET taken = taken + 1 WHERE taken < @max
       RETURNING taken`,
    );
  }

  async take(codeId: string, maxScans: number): Promise<boolean> {
    if (maxScans < 1) return false;
    return this.#take.get({ code: codeId, max: maxScans }) !== undefined;
  }
}
