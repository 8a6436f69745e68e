// UsageLedger on MongoDB: versioned upserts guarded by unique indexes, so replays and late snapshots never move values
// backwards.
import type { AnyBulkWriteOperation } from 'mongoose';
import type { QrType } from '../../domain/content/types.js';
import type { PeriodId } from '../../domain/period.js';
import type { UsageLedger, UsageSnapshot } from '../../domain/ports/usage-ledger.js';
import type { QrRecord, Usage } from '../../domain/ports/usage-meter.js';
import { isDuplicateKey } from './connection.js';
import type { MongoModels, UsageQrDoc } from './models.js';

type QrWrite = { filter: Record<string, unknown>; set: Partial<UsageQrDoc> };

/** Indexes of the operations a bulk write refused on a unique index. */
function duplicateIndexes(error: unknown): number[] | undefined {
  const writeErrors = (error as { writeErrors?: Array<{ index: number; code: number }> } | undefined)?.writeErrors;
  if (!Array.isArray(writeErrors) || writeErrors.length === 0 || !writeErrors.every((e) => e.code === 11000))
    return undefined;
  return writeErrors.map((e) => e.index);
}

/** The collections this store reads and writes. */
type LedgerModels = Pick<MongoModels, 'usage' | 'usageQrs'>;

export class MongoUsageLedger implements UsageLedger {
  readonly #models: LedgerModels;

  constructor(models: LedgerModels) {
    this.#models = models;
  }

  async apply(s: UsageSnapshot): Promise<void> {
    const key = { accountId: s.accountId, period: s.period };
    // The filter matches only an older (or equal) version; when a newer one is stored the upsert collides with the
    // unique index instead. A collision can also mean another writer inserted first: then retry as a plain update.
    const usageFilter = { ...key, version: { $lte: s.version } };
    const usageSet = { requests: s.usage.requests, qrs: s.usage.qrs, version: s.version };
    try {
      await this.#models.usage.updateOne(usageFilter, { $set: usageSet }, { upsert: true });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      await this.#models.usage.updateOne(usageFilter, { $set: usageSet });
    }

    const writes: QrWrite[] = [
      ...s.qrs.map((qr) => ({
        filter: { ...key, fingerprint: qr.fingerprint, version: { $lte: s.version } },
        set: {
          type: qr.type,
          payload: qr.payload,
          generations: qr.generations,
          firstAt: qr.firstAt,
          lastAt: qr.lastAt,
          version: s.version,
        },
      })),
      // A removed code stays as a versioned tombstone, so an older snapshot arriving late cannot bring it back.
      ...s.removed.map((fingerprint) => ({
        filter: { ...key, fingerprint, version: { $lte: s.version } },
        set: { generations: 0, version: s.version },
      })),
    ];
    if (writes.length === 0) return;
    const upserts: AnyBulkWriteOperation<UsageQrDoc>[] = writes.map((w) => ({
      updateOne: { filter: w.filter, update: { $set: w.set }, upsert: true },
    }));
    try {
      await this.#models.usageQrs.bulkWrite(upserts, { ordered: false });
    } catch (error) {
      const refused = duplicateIndexes(error);
      if (!refused) throw error;
      await this.#models.usageQrs.bulkWrite(
        refused.map((i) => ({ updateOne: { filter: writes[i]!.filter, update: { $set: writes[i]!.set } } })),
        { ordered: false },
      );
    }
  }

  async usage(accountId: string, period: PeriodId): Promise<Usage | undefined> {
    const doc = await this.#models.usage
      .findOne({ accountId, period }, { requests: 1, qrs: 1 })
      .lean<{ requests: number; qrs: number }>();
    return doc ? { requests: doc.requests, qrs: doc.qrs } : undefined;
  }

  async qrs(accountId: string, period: PeriodId, limit: number): Promise<QrRecord[]> {
    if (limit <= 0) return [];
    const docs = await this.#models.usageQrs
      .find({ accountId, period, generations: { $gt: 0 } })
      .sort({ lastAt: -1 })
      .limit(limit)
      .lean<UsageQrDoc[]>();
    return docs.map((doc) => ({
      fingerprint: doc.fingerprint,
      type: doc.type as QrType,
      payload: doc.payload ?? '',
      generations: doc.generations,
      firstAt: doc.firstAt ?? new Date(0),
      lastAt: doc.lastAt ?? new Date(0),
    }));
  }
}
