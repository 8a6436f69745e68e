// ScanEventSource on SQLite: the scans the recorder counted for the webhooks (scan_events_pending), taken and deleted in one transaction.
import type { ScanEventSource } from '../../domain/ports/scan-webhooks.js';
import type { AccountScans, DeviceClass } from '../../domain/scan.js';
import type { SqliteDatabase } from './database.js';

export class SqliteScanEventSource implements ScanEventSource {
  readonly #take;

  constructor(db: SqliteDatabase) {
    const accounts = db.prepare<[number], { account_id: string }>('SELECT DISTINCT account_id FROM scan_events_pending LIMIT ?');
    const rows = db.prepare<[string], { code_id: string; scans: number; devices: string }>(
      'DELETE FROM scan_events_pending WHERE account_id = ? RETURNING code_id, scans, devices',
    );
    this.#take = db.transaction((limit: number): AccountScans[] =>
      accounts.all(limit).map(({ account_id }) => ({
        accountId: account_id,
        codes: rows.all(account_id).map((r) => ({ codeId: r.code_id, scans: r.scans, devices: JSON.parse(r.devices) as Partial<Record<DeviceClass, number>> })),
      })),
    );
  }

  async take(limit: number): Promise<AccountScans[]> {
    return this.#take.immediate(limit);
  }
}
