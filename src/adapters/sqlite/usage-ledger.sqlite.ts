// UsageLedger on SQLite: versioned upserts, so snapshots applied twice or out of order leave the newest values.
import type { PeriodId } from '../../domain/period.js';
import type { UsageLedger, UsageSnapshot } from '../../domain/ports/usage-ledger.js';
import type { QrRecord, Usage } from '../../domain/ports/usage-meter.js';
import type { SqliteDatabase } from './database.js';
import { toQrRecord, type QrRow } from './qr-row.js';

interface QrParams {
  account: string;
  period: PeriodId;
  fingerprint: string;
  type: string;
  payload: string;
  generations: number;
  firstAt: number;
  lastAt: number;
  version: number;
}

export class SqliteUsageLedger implements UsageLedger {
  readonly #apply;
  readonly #usage;
  readonly #qrs;

  constructor(db: SqliteDatabase) {
    const putUsage = db.prepare<
      [{ account: string; period: PeriodId; requests: number; qrs: number; version: number }],
      unknown
    >(
      `INSERT INTO usage_ledger (account_id, period, requests, qrs, version)
       VALUES (@account, @period, @requests, @qrs, @version)
       ON CONFLICT (account_id, period) DO UPDATE SET requests = excluded.requests, qrs = excluded.qrs,
         version = excluded.version
       WHERE excluded.version >= usage_ledger.version`,
    );
    const putQr = db.prepare<[QrParams], unknown>(
      `INSERT INTO qr_ledger (account_id, period, fingerprint, type, payload, generations, first_at, last_at, version)
       VALUES (@account, @period, @fingerprint, @type, @payload, @generations, @firstAt, @lastAt, @version)
       ON CONFLICT (account_id, period, fingerprint) DO UPDATE SET type = excluded.type, payload = excluded.payload,
         generations = excluded.generations, first_at = excluded.first_at, last_at = excluded.last_at,
         version = excluded.version
       WHERE excluded.version >= qr_ledger.version`,
    );
    // A removed code stays as a versioned tombstone, so an older snapshot arriving late cannot bring it back.
    const removeQr = db.prepare<[{ account: string; period: PeriodId; fingerprint: string; version: number }], unknown>(
      `INSERT INTO qr_ledger (account_id, period, fingerprint, generations, version)
       VALUES (@account, @period, @fingerprint, 0, @version)
       ON CONFLICT (account_id, period, fingerprint) DO UPDATE SET generations = 0, version = excluded.version
       WHERE excluded.version >= qr_ledger.version`,
    );
    this.#apply = db.transaction((s: UsageSnapshot) => {
      const key = { account: s.accountId, period: s.period, version: s.version };
      putUsage.run({ ...key, requests: s.usage.requests, qrs: s.usage.qrs });
      for (const qr of s.qrs) {
        putQr.run({
          ...key,
          fingerprint: qr.fingerprint,
          type: qr.type,
          payload: qr.payload,
          generations: qr.generations,
          firstAt: qr.firstAt.getTime(),
          lastAt: qr.lastAt.getTime(),
        });
      }
      for (const fingerprint of s.removed) removeQr.run({ ...key, fingerprint });
    });
    this.#usage = db.prepare<[string, PeriodId], Usage>(
      'SELECT requests, qrs FROM usage_ledger WHERE account_id = ? AND period = ?',
    );
    this.#qrs = db.prepare<[string, PeriodId, number], QrRow>(
      `SELECT fingerprint, type, payload, generations, first_at, last_at FROM qr_ledger
       WHERE account_id = ? AND period = ? AND generations > 0 ORDER BY last_at DESC LIMIT ?`,
    );
  }

  async apply(snapshot: UsageSnapshot): Promise<void> {
    this.#apply.immediate(snapshot);
  }

  async usage(accountId: string, period: PeriodId): Promise<Usage | undefined> {
    return this.#usage.get(accountId, period);
  }

  async qrs(accountId: string, period: PeriodId, limit: number): Promise<QrRecord[]> {
    return this.#qrs.all(accountId, period, limit).map(toQrRecord);
  }
}
