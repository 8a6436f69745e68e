// ScanLedger on MongoDB: one document per code and UTC day, written as absolute values that never move back.
import type { Model } from 'mongoose';
import type { ScanLedger } from '../../domain/ports/scan-ledger.js';
import { emptyScanDay, type ScanDay } from '../../domain/scan.js';
import { isDuplicateKey } from './connection.js';
import type { DynamicCodeDoc, ScanDayDoc } from './models.js';

export class MongoScanLedger implements ScanLedger {
  readonly #days: Model<ScanDayDoc>;
  readonly #codes: Model<DynamicCodeDoc>;

  constructor(days: Model<ScanDayDoc>, codes: Model<DynamicCodeDoc>) {
    this.#days = days;
    this.#codes = codes;
  }

  async apply(days: readonly ScanDay[]): Promise<void> {
    for (const day of days) {
      // Matches only stored counts that are not newer; when newer ones are stored, the upsert collides with the unique
      // index and changes nothing.
      const filter = {
        codeId: day.codeId,
        day: day.day,
        scans: { $lte: day.scans },
        $or: [{ bots: { $lte: day.bots } }, { bots: { $exists: false } }],
      };
      const { codeId: _codeId, day: _day, ...set } = day;
      try {
        await this.#days.updateOne(filter, { $set: set }, { upsert: true });
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        await this.#days.updateOne(filter, { $set: set });
      }
    }
    await this.#countAllTime(new Set(days.map((day) => day.codeId)));
  }

  /** Each code's all-time scans, summed again from its days: a replayed or interrupted apply still ends right. */
  async #countAllTime(codeIds: ReadonlySet<string>): Promise<void> {
    if (codeIds.size === 0) return;
    const sums = await this.#days.aggregate<{ _id: string; scans: number }>([
      { $match: { codeId: { $in: [...codeIds] } } },
      { $group: { _id: '$codeId', scans: { $sum: '$scans' } } },
    ]);
    await this.#codes.bulkWrite(
      sums.map((sum) => ({ updateOne: { filter: { _id: sum._id }, update: { $set: { scans: sum.scans } } } })),
    );
  }

  async erase(codeId: string): Promise<void> {
    await this.#days.deleteMany({ codeId });
    await this.#codes.updateOne({ _id: codeId }, { $set: { scans: 0 } });
  }

  async keepTotalsBefore(codeIds: readonly string[], beforeDay: string): Promise<number> {
    if (codeIds.length === 0) return 0;
    const detail = { uniques: 0, devices: {}, languages: {}, arms: {}, countries: {}, cities: {}, hours: {} };
    const { modifiedCount } = await this.#days.updateMany(
      { codeId: { $in: [...codeIds] }, day: { $lt: beforeDay }, devices: { $ne: {} } },
      { $set: { ...detail, hourUniques: {} } },
    );
    return modifiedCount;
  }

  async days(codeId: string, fromDay: string, toDay: string): Promise<ScanDay[]> {
    const docs = await this.#days
      .find({ codeId, day: { $gte: fromDay, $lte: toDay } })
      .sort({ day: 1 })
      .lean<ScanDayDoc[]>();
    return docs.map(toScanDay);
  }

  async daysOfCodes(codeIds: readonly string[], fromDay: string, toDay: string): Promise<ScanDay[]> {
    if (codeIds.length === 0) return [];
    const docs = await this.#days
      .find({ codeId: { $in: [...codeIds] }, day: { $gte: fromDay, $lte: toDay } })
      .lean<ScanDayDoc[]>();
    return docs.map(toScanDay);
  }

  async scansSince(codeIds: readonly string[], fromDay: string): Promise<Map<string, number>> {
    const sums = await this.#days.aggregate<{ _id: string; scans: number }>([
      { $match: { codeId: { $in: [...codeIds] }, day: { $gte: fromDay } } },
      { $group: { _id: '$codeId', scans: { $sum: '$scans' } } },
    ]);
    return new Map(sums.map((sum) => [sum._id, sum.scans]));
  }
}

/** Documents written before arms, bots, places and hours were counted lack them: read as empty. */
function toScanDay(doc: ScanDayDoc): ScanDay {
  return {
    ...emptyScanDay(doc.codeId, doc.day),
    scans: doc.scans,
    uniques: doc.uniques,
    devices: doc.devices,
    languages: doc.languages,
    arms: doc.arms ?? {},
    bots: doc.bots ?? 0,
    countries: doc.countries ?? {},
    cities: doc.cities ?? {},
    hours: doc.hours ?? {},
    hourUniques: doc.hourUniques ?? {},
  };
}
