// ScanRecorder, embedded: the scans of a few milliseconds counted in one SQLite transaction, exact uniques per day.
import { randomBytes } from 'node:crypto';
import { SCAN_GATHER_MS, type ScanRecorder } from '../../domain/ports/scan-ledger.js';
import {
  addScan,
  dayOf,
  emptyScanDay,
  saltedVisitor,
  type DeviceClass,
  type Scan,
  type ScanDay,
} from '../../domain/scan.js';
import type { SqliteDatabase } from './database.js';
import {
  SCAN_DAY_COLUMNS,
  SCAN_DAY_UPDATE,
  SCAN_DAY_VALUES,
  toScanDay,
  toScanDayRow,
  type ScanDayRow,
} from './scan-ledger.sqlite.js';

export interface SqliteScanRecorderOptions {
  /** Scans waiting for their transaction; past it new scans are dropped and reported lost (default 50,000). */
  maxPending?: number;
}

const DAY_MS = 86_400_000;

/**
 * Group commit, as the metering does: one IMMEDIATE transaction per batch instead of one per scan.
 * Unique scanners are exact: each day's visitor digests (a random salt per day over a hash of address
 * and user agent) are kept for that day and the next, then deleted with the salt; only the counts stay.
 */
export class SqliteScanRecorder implements ScanRecorder {
  readonly #db: SqliteDatabase;
  readonly #maxPending: number;
  readonly #selectDay;
  readonly #putDay;
  readonly #addVisitor;
  readonly #addSalt;
  readonly #salt;
  readonly #pruneVisitors;
  readonly #pruneSalts;
  readonly #selectEvents;
  readonly #putEvents;
  #pending: Scan[] = [];
  #scheduled = false;
  #prunedBefore = '';
  #lost = 0;

  constructor(db: SqliteDatabase, options: SqliteScanRecorderOptions = {}) {
    this.#db = db;
    this.#maxPending = options.maxPending ?? 50_000;
    this.#selectDay = db.prepare<[string, string], ScanDayRow>(
      `SELECT ${SCAN_DAY_COLUMNS} FROM scan_days WHERE code_id = ? AND day = ?`,
    );
    // An upsert, not OR REPLACE: a replace fires no delete trigger, and the code's all-time count would take the day
    // twice.
    this.#putDay = db.prepare<unknown[], unknown>(
      `INSERT INTO scan_days (${SCAN_DAY_COLUMNS}) VALUES (${SCAN_DAY_VALUES}) ON CONFLICT (code_id, day) DO ` +
        `UPDATE SET ${SCAN_DAY_UPDATE}`,
    );
    this.#addVisitor = db.prepare<[string, string, string], unknown>(
      'INSERT OR IGNORE INTO scan_visitors (code_id, day, visitor) VALUES (?, ?, ?)',
    );
    this.#addSalt = db.prepare<[string, string], unknown>('INSERT OR IGNORE INTO scan_salts (day, salt) VALUES (?, ?)');
    this.#salt = db.prepare<[string], { salt: string }>('SELECT salt FROM scan_salts WHERE day = ?');
    this.#pruneVisitors = db.prepare<[string], unknown>('DELETE FROM scan_visitors WHERE day < ?');
    this.#pruneSalts = db.prepare<[string], unknown>('DELETE FROM scan_salts WHERE day < ?');
    this.#selectEvents = db.prepare<[string, string], { scans: number; devices: string }>(
      'SELECT scans, devices FROM scan_events_pending WHERE account_id = ? AND code_id = ?',
    );
    this.#putEvents = db.prepare<[string, string, number, string], unknown>(
      'INSERT OR REPLACE INTO scan_events_pending (account_id, code_id, scans, devices) VALUES (?, ?, ?, ?)',
    );
  }

  record(scan: Scan): void {
    if (this.#pending.length >= this.#maxPending) return void this.#lost++;
    this.#pending.push(scan);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setTimeout(() => this.#flushPending(), SCAN_GATHER_MS).unref();
  }

  unrecorded(): number {
    return this.#lost;
  }

  async flush(): Promise<void> {
    this.#flushPending();
  }

  async close(): Promise<void> {
    this.#flushPending();
  }

  #flushPending(): void {
    this.#scheduled = false;
    const batch = this.#pending.splice(0);
    if (batch.length === 0) return;
    try {
      this.#db.transaction(() => this.#count(batch)).immediate();
    } catch {
      // Busy past the timeout, disk full, read-only: the redirects were answered; these scans are reported, not
      // retried.
      this.#lost += batch.length;
    }
  }

  #count(batch: readonly Scan[]): void {
    const salts = new Map<string, string>();
    const days = new Map<string, ScanDay>();
    for (const scan of batch) {
      const day = dayOf(scan.at);
      let salt = salts.get(day);
      if (salt === undefined) {
        this.#addSalt.run(day, randomBytes(16).toString('base64url'));
        salt = this.#salt.get(day)!.salt;
        salts.set(day, salt);
      }
      const key = `${scan.codeId}\u0000${day}`;
      let counts = days.get(key);
      if (!counts) {
        const row = this.#selectDay.get(scan.codeId, day);
        counts = row ? toScanDay(row) : emptyScanDay(scan.codeId, day);
        days.set(key, counts);
      }
      const newVisitor =
        !scan.bot &&
        scan.visitor !== null &&
        this.#addVisitor.run(scan.codeId, day, saltedVisitor(salt, scan.visitor)).changes === 1;
      addScan(counts, scan, newVisitor);
    }
    for (const counts of days.values()) this.#putDay.run(...toScanDayRow(counts));
    this.#countEvents(batch);
    this.#prune(batch[0]!.at);
  }

  /**
   * The same scans, per account and code, for the scan webhooks: in this transaction, so they always equal the counts.
   */
  #countEvents(batch: readonly Scan[]): void {
    const events = new Map<
      string,
      { accountId: string; codeId: string; scans: number; devices: Partial<Record<DeviceClass, number>> }
    >();
    for (const scan of batch) {
      if (scan.bot) continue;
      const key = `${scan.accountId}\u0000${scan.codeId}`;
      let event = events.get(key);
      if (!event) {
        const row = this.#selectEvents.get(scan.accountId, scan.codeId);
        event = {
          accountId: scan.accountId,
          codeId: scan.codeId,
          scans: row?.scans ?? 0,
          devices: row ? (JSON.parse(row.devices) as Partial<Record<DeviceClass, number>>) : {},
        };
        events.set(key, event);
      }
      event.scans++;
      event.devices[scan.device] = (event.devices[scan.device] ?? 0) + 1;
    }
    for (const e of events.values()) this.#putEvents.run(e.accountId, e.codeId, e.scans, JSON.stringify(e.devices));
  }

  /** Once a day: digests and salts older than yesterday go (a late scan of yesterday still counts exactly). */
  #prune(at: Date): void {
    const before = dayOf(new Date(at.getTime() - DAY_MS));
    if (before <= this.#prunedBefore) return;
    this.#pruneVisitors.run(before);
    this.#pruneSalts.run(before);
    this.#prunedBefore = before;
  }
}
