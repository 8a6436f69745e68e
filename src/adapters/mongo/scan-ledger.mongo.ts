// ScanLedger on MongoDB: one document per code and UTC day, written as absolute values that never move back.
import type { Model } from 'mongoose';
import type { ScanLedger } from '../../domain/ports/scan-ledger.js';
import type { ScanDay } from '../../domain/scan.js';
import { isDuplicateKey } from './connection.js';
import type { ScanDayDoc } from './models.js';

export class MongoScanLedger implements ScanLedger {
  readonly #days: Model<ScanDayDoc>;

  constructor(days: Model<ScanDayDoc>) {
    this.#days = days;
  }

  async apply(days: readonly ScanDay[]): Promise<void> {
    for (const day of days) {
      // Matches only a stored count that is not newer; when a newer one is stored, the upsert collides with the unique index and changes nothing.
      const filter = { codeId: day.codeId, day: day.day, scans: { $lte: day.scans } };
      const set = { scans: day.scans, uniques: day.uniques, devices: day.devices, languages: day.languages };
      try {
        await this.#days.updateOne(filter, { $set: set }, { upsert: true });
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        await this.#days.updateOne(filter, { $set: set });
      }
    }
  }

  async days(codeId: string, fromDay: string, toDay: string): Promise<ScanDay[]> {
    const docs = await this.#days
      .find({ codeId, day: { $gte: fromDay, $lte: toDay } })
      .sort({ day: 1 })
      .lean<ScanDayDoc[]>();
    return docs.map((doc) => ({ codeId: doc.codeId, day: doc.day, scans: doc.scans, uniques: doc.uniques, devices: doc.devices, languages: doc.languages }));
  }
}
