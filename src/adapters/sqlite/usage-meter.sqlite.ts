// UsageMeter on SQLite: burst, quota checks and counts in one IMMEDIATE transaction, exact under concurrency and across
// processes.
import type { PeriodId } from '../../domain/period.js';
import * as port from '../../domain/ports/usage-meter.js';
import { countByFingerprint } from '../../domain/distinct-codes.js';
import type { SqliteDatabase } from './database.js';
import { toQrRecord, type QrRow } from './qr-row.js';

/** The parameters of one code's count in a period: `count` more generations, the last at `at`. */
interface QrCount {
  account: string;
  period: PeriodId;
  fingerprint: string;
  type: string;
  payload: string;
  at: number;
  count: number;
}

/** Counts `count` more generations of one code in a period, entering it when it is new. */
const COUNT_QR = `INSERT INTO qr_codes (account_id, period, fingerprint, type, payload, generations, first_at, last_at)
  VALUES (@account, @period, @fingerprint, @type, @payload, @count, @at, @at)
  ON CONFLICT (account_id, period, fingerprint)
  DO UPDATE SET generations = generations + @count, last_at = max(last_at, @at)`;

function qrCount(
  { accountId, period }: { accountId: string; period: PeriodId },
  qr: port.QrIdentity,
  at: number,
  count: number,
): QrCount {
  return { account: accountId, period, fingerprint: qr.fingerprint, type: qr.type, payload: qr.payload, at, count };
}

/** How often at most the burst log is trimmed of rows older than the window. */
const TRIM_EVERY_MS = 100;

export class SqliteUsageMeter implements port.UsageMeter {
  readonly #reserve;
  readonly #refund;
  readonly #usage;
  readonly #qrs;
  readonly #reserveBatch;
  readonly #refundBatchItems;
  readonly #admitBurst;
  readonly #reserveRequest;
  readonly #refundRequest;
  /** Request reservations already given back: a second refund of the same one is a no-op (held weakly: no growth). */
  readonly #refundedRequests = new WeakSet<port.RequestReservation>();

  constructor(db: SqliteDatabase) {
    const usage = db.prepare<[string, PeriodId], port.Usage>(
      'SELECT requests, qrs FROM usage WHERE account_id = ? AND period = ?',
    );
    const qrExists = db.prepare<[string, PeriodId, string], { one: number }>(
      'SELECT 1 AS one FROM qr_codes WHERE account_id = ? AND period = ? AND fingerprint = ?',
    );
    const countUsage = db.prepare<[{ account: string; period: PeriodId; requests: number; newQrs: number }], unknown>(
      `INSERT INTO usage (account_id, period, requests, qrs) VALUES (@account, @period, @requests, @newQrs)
       ON CONFLICT (account_id, period) DO UPDATE SET requests = requests + @requests, qrs = qrs + @newQrs`,
    );
    const countQrs = db.prepare<[QrCount], unknown>(COUNT_QR);
    // The same, answering with the count after it: 1 means the code is new this period (a counted code has at least 1).
    const countQrReturning = db.prepare<[QrCount], { generations: number }>(`${COUNT_QR} RETURNING generations`);
    const markRefunded = db.prepare<[string, number], unknown>(
      'INSERT OR IGNORE INTO batch_refunds (batch_id, idx) VALUES (?, ?)',
    );
    const uncountQr = db.prepare<[string, PeriodId, string], { generations: number }>(
      'UPDATE qr_codes SET generations = generations - 1 WHERE account_id = ? AND period = ? AND fingerprint = ' +
        '? RETURNING generations',
    );
    const dropQr = db.prepare<[string, PeriodId, string], unknown>(
      'DELETE FROM qr_codes WHERE account_id = ? AND period = ? AND fingerprint = ? AND generations <= 0',
    );
    const uncountUsage = db.prepare<[{ account: string; period: PeriodId; goneQrs: number }], unknown>(
      'UPDATE usage SET requests = max(requests - 1, 0), qrs = max(qrs - @goneQrs, 0) WHERE account_id = ' +
        '@account AND period = @period',
    );
    // The burst log holds about the last second: what aged out is trimmed, whichever key it was, at most every
    // TRIM_EVERY_MS (the count reads only the window, so older rows change no answer; they only take room).
    // The trim reads the whole log (about a second of rows) rather than keep a second tree ordered by time.
    const trimBurst = db.prepare<[number], unknown>('DELETE FROM burst_log WHERE at <= ?');
    let trimmedAt = -Infinity;
    const countBurst = db.prepare<[string, number], { used: number | null }>(
      'SELECT sum(requests) AS used FROM burst_log WHERE burst_key = ? AND at > ?',
    );
    const logBurst = db.prepare<[string, number], unknown>(
      'INSERT INTO burst_log (burst_key, at, requests) VALUES (?, ?, 1) ON CONFLICT (burst_key, at) DO UPDATE ' +
        'SET requests = requests + 1',
    );
    const burstUsedAt = (key: string, at: number): number => {
      if (Math.abs(at - trimmedAt) >= TRIM_EVERY_MS) {
        trimBurst.run(at - port.BURST_WINDOW_MS);
        trimmedAt = at;
      }
      return countBurst.get(key, at - port.BURST_WINDOW_MS)!.used ?? 0;
    };
    const takeBurstSlot = (key: string, perSecond: number, at: number): { ok: boolean; used: number } => {
      const used = burstUsedAt(key, at);
      if (used >= perSecond) return { ok: false, used };
      logBurst.run(key, at);
      return { ok: true, used: used + 1 };
    };
    this.#admitBurst = db.transaction((burst: port.BurstLimit, at: number): port.BurstOutcome =>
      takeBurstSlot(burst.key, burst.perSecond, at),
    );
    this.#usage = usage;
    this.#qrs = db.prepare<[string, PeriodId, number], QrRow>(
      `SELECT fingerprint, type, payload, generations, first_at, last_at FROM qr_codes
       WHERE account_id = ? AND period = ? ORDER BY last_at DESC LIMIT ?`,
    );

    /**
     * What every reservation checks first: the burst (the cheapest refusal, and one that must not touch the monthly
     * counts), then the month's requests. The burst slot itself is taken only once the whole reservation passes.
     */
    const checkRequest = ({ accountId, period, limits, burst }: port.RequestReserveInput, at: number) => {
      const current = usage.get(accountId, period) ?? { requests: 0, qrs: 0 };
      const burstUsed = burst ? burstUsedAt(burst.key, at) : 0;
      const burstState = (used: number) => (burst ? { burst: { used } } : {});
      const reason: 'rate_limited' | 'quota_exceeded' | undefined =
        burst && burstUsed >= burst.perSecond
          ? 'rate_limited'
          : limits.requests !== null && current.requests >= limits.requests
            ? 'quota_exceeded'
            : undefined;
      const refusal = reason && { ok: false as const, reason, usage: current, ...burstState(burstUsed) };
      return { current, burstUsed, burstState, refusal };
    };

    this.#reserve = db.transaction((input: port.ReserveInput, at: number): port.ReserveOutcome => {
      const { accountId, period, qr, limits, burst } = input;
      const { current, burstUsed, burstState, refusal } = checkRequest(input, at);
      if (refusal) return refusal;
      const qrRow = qrCount(input, qr, at, 1);
      let isNewQr: boolean;
      if (limits.qrs === null || current.qrs < limits.qrs) {
        // Room for a new code: count it at once; the upsert says whether it was new (one statement, not two).
        isNewQr = countQrReturning.get(qrRow)!.generations === 1;
      } else {
        isNewQr = qrExists.get(accountId, period, qr.fingerprint) === undefined;
        if (isNewQr) return { ok: false, reason: 'qr_quota_exceeded', usage: current, ...burstState(burstUsed) };
        countQrs.run(qrRow);
      }
      countUsage.run({ account: accountId, period, requests: 1, newQrs: isNewQr ? 1 : 0 });
      if (burst) logBurst.run(burst.key, at);
      return {
        ok: true,
        reservation: { accountId, period, fingerprint: qr.fingerprint },
        usage: { requests: current.requests + 1, qrs: current.qrs + (isNewQr ? 1 : 0) },
        ...burstState(burstUsed + 1),
      };
    });
    this.#reserveRequest = db.transaction((input: port.RequestReserveInput, at: number): port.RequestReserveOutcome => {
      const { accountId, period, burst } = input;
      const { current, burstUsed, burstState, refusal } = checkRequest(input, at);
      if (refusal) return refusal;
      countUsage.run({ account: accountId, period, requests: 1, newQrs: 0 });
      if (burst) logBurst.run(burst.key, at);
      return {
        ok: true,
        reservation: { accountId, period },
        usage: { requests: current.requests + 1, qrs: current.qrs },
        ...burstState(burstUsed + 1),
      };
    });
    this.#refundRequest = db.transaction((reservation: port.RequestReservation) =>
      uncountUsage.run({ account: reservation.accountId, period: reservation.period, goneQrs: 0 }),
    );
    const refundOne = (accountId: string, period: PeriodId, fingerprint: string) => {
      const left = uncountQr.get(accountId, period, fingerprint);
      const qrGone = left !== undefined && left.generations <= 0;
      if (qrGone) dropQr.run(accountId, period, fingerprint);
      uncountUsage.run({ account: accountId, period, goneQrs: qrGone ? 1 : 0 });
    };
    this.#refund = db.transaction((reservation: port.Reservation) =>
      refundOne(reservation.accountId, reservation.period, reservation.fingerprint),
    );

    this.#reserveBatch = db.transaction((input: port.BatchReserveInput, at: number): port.BatchReserveOutcome => {
      const { accountId, period, limits } = input;
      const current = usage.get(accountId, period) ?? { requests: 0, qrs: 0 };
      const counts = countByFingerprint(input.qrs);
      let newQrs = 0;
      for (const fingerprint of counts.keys()) if (qrExists.get(accountId, period, fingerprint) === undefined) newQrs++;
      const needed = { requests: input.qrs.length, qrs: newQrs };
      if (limits.requests !== null && current.requests + needed.requests > limits.requests)
        return { ok: false, reason: 'quota_exceeded', usage: current, needed };
      if (limits.qrs !== null && current.qrs + newQrs > limits.qrs)
        return { ok: false, reason: 'qr_quota_exceeded', usage: current, needed };
      countUsage.run({ account: accountId, period, requests: needed.requests, newQrs });
      for (const { qr, count } of counts.values()) countQrs.run(qrCount(input, qr, at, count));
      return { ok: true, usage: { requests: current.requests + needed.requests, qrs: current.qrs + newQrs } };
    });
    this.#refundBatchItems = db.transaction((input: port.BatchRefundInput): number => {
      let refunded = 0;
      for (const item of input.items) {
        if (markRefunded.run(input.batchId, item.index).changes === 0) continue;
        refundOne(input.accountId, input.period, item.fingerprint);
        refunded++;
      }
      return refunded;
    });
  }

  async reserve(input: port.ReserveInput): Promise<port.ReserveOutcome> {
    // IMMEDIATE: the write lock is taken before the read, so separate processes cannot interleave check and count.
    return this.#reserve.immediate(input, input.at.getTime());
  }

  async refund(reservation: port.Reservation): Promise<void> {
    this.#refund.immediate(reservation);
  }

  async reserveBatch(input: port.BatchReserveInput): Promise<port.BatchReserveOutcome> {
    return this.#reserveBatch.immediate(input, input.at.getTime());
  }

  async refundBatchItems(input: port.BatchRefundInput): Promise<number> {
    return this.#refundBatchItems.immediate(input);
  }

  async admitBurst(burst: port.BurstLimit, at: Date): Promise<port.BurstOutcome> {
    return this.#admitBurst.immediate(burst, at.getTime());
  }

  async reserveRequest(input: port.RequestReserveInput): Promise<port.RequestReserveOutcome> {
    return this.#reserveRequest.immediate(input, input.at.getTime());
  }

  async refundRequest(reservation: port.RequestReservation): Promise<void> {
    if (this.#refundedRequests.has(reservation)) return;
    this.#refundedRequests.add(reservation);
    this.#refundRequest.immediate(reservation);
  }

  async usage(accountId: string, period: PeriodId): Promise<port.Usage> {
    return this.#usage.get(accountId, period) ?? { requests: 0, qrs: 0 };
  }

  async qrs(accountId: string, period: PeriodId, limit: number): Promise<port.QrRecord[]> {
    return this.#qrs.all(accountId, period, limit).map(toQrRecord);
  }
}
