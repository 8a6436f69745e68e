// UsageMeter decorator for SQLite: reservations arriving in the same event-loop turn share one IMMEDIATE transaction.
import type { ReserveInput, ReserveOutcome, UsageMeter } from '../../domain/ports/usage-meter.js';
import { TurnBatch, type Waiting } from '../turn-batch.js';
import type { SqliteDatabase } from './database.js';

type Pending = Waiting<ReserveInput, ReserveOutcome>;

/**
 * Group commit. Each reservation still runs its own check-and-count (nested, as a savepoint), in
 * arrival order, so the quota arithmetic is exactly that of one-by-one reservations; what is shared
 * is the write lock and the commit — one WAL append for the whole batch instead of one per request
 * (bench/run.ts scenario c measures the difference). Outcomes are released only after COMMIT, so
 * a failed commit acknowledges nothing.
 */
export class GroupCommitMeter implements UsageMeter {
  readonly #db: SqliteDatabase;
  readonly #inner: UsageMeter;
  readonly #turn: TurnBatch<ReserveInput, ReserveOutcome>;

  constructor(db: SqliteDatabase, inner: UsageMeter, maxBatch = 256) {
    this.#db = db;
    this.#inner = inner;
    this.#turn = new TurnBatch((batch) => this.#commit(batch), maxBatch);
  }

  reserve(input: ReserveInput): Promise<ReserveOutcome> {
    return this.#turn.add(input);
  }

  #commit(batch: Pending[]): void {
    try {
      this.#db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    const outcomes: Array<Promise<ReserveOutcome>> = [];
    for (const item of batch) {
      // The inner meter's statements run synchronously inside this call (better-sqlite3), nested as savepoints.
      outcomes.push(this.#inner.reserve(item.input));
      // On some errors (SQLITE_FULL, SQLITE_IOERR) SQLite rolls the whole transaction back: nothing of this batch is
      // stored.
      if (!this.#db.inTransaction) return this.#failBatch(batch, outcomes);
    }
    try {
      this.#db.exec('COMMIT');
    } catch (error) {
      if (this.#db.inTransaction) this.#db.exec('ROLLBACK');
      return this.#failBatch(batch, outcomes, error);
    }
    batch.forEach((item, i) => outcomes[i]!.then(item.resolve, item.reject));
  }

  /** Every reservation of a batch that was not stored fails, with the storage error that ended it (a 503 upstream). */
  #failBatch(batch: Pending[], outcomes: Array<Promise<ReserveOutcome>>, commitError?: unknown): void {
    void Promise.allSettled(outcomes).then((settled) => {
      const storageError = [...settled]
        .reverse()
        .find((s): s is PromiseRejectedResult => s.status === 'rejected')?.reason;
      const cause = commitError ?? storageError ?? new Error('the metering transaction was rolled back');
      for (const item of batch) item.reject(cause);
    });
  }

  refund: UsageMeter['refund'] = (reservation) => this.#inner.refund(reservation);
  // A batch is one transaction of its own already: nothing to group.
  reserveBatch: UsageMeter['reserveBatch'] = (input) => this.#inner.reserveBatch(input);
  admitBurst: UsageMeter['admitBurst'] = (burst, at) => this.#inner.admitBurst(burst, at);
  reserveRequest: UsageMeter['reserveRequest'] = (input) => this.#inner.reserveRequest(input);
  refundRequest: UsageMeter['refundRequest'] = (reservation) => this.#inner.refundRequest(reservation);
  refundBatchItems: UsageMeter['refundBatchItems'] = (input) => this.#inner.refundBatchItems(input);
  usage: UsageMeter['usage'] = (accountId, period) => this.#inner.usage(accountId, period);
  qrs: UsageMeter['qrs'] = (accountId, period, limit) => this.#inner.qrs(accountId, period, limit);
}
