// DesignStore on MongoDB: options as JSON text per account; the count limit held by a per-account unique slot, as the
// logos' is.
import type { Model } from 'mongoose';
import type { DesignOptions } from '../../domain/design.js';
import type { DesignRecord, DesignStore, NewDesign } from '../../domain/ports/design-store.js';
import { isDuplicateKey } from './connection.js';
import type { DesignDoc } from './models.js';

function toRecord(doc: DesignDoc): DesignRecord {
  return {
    id: doc._id,
    accountId: doc.accountId,
    name: doc.name,
    options: JSON.parse(doc.options) as DesignOptions,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

/** Slots for "unlimited" plans: far past any real account, small enough to scan. */
const UNLIMITED_SLOTS = 1_000_000;

export class MongoDesignStore implements DesignStore {
  readonly #designs: Model<DesignDoc>;

  constructor(designs: Model<DesignDoc>) {
    this.#designs = designs;
  }

  async createWithinLimit(input: NewDesign, maxDesigns: number | null): Promise<DesignRecord | 'limit_reached'> {
    const max = maxDesigns ?? UNLIMITED_SLOTS;
    // Of two writers racing for the last free slot the unique index lets one in; each lost race means another design
    // took a slot.
    for (let attempt = 0; attempt <= Math.min(max, 1000) * 2 + 2; attempt++) {
      const held = await this.#designs
        .find({ accountId: input.accountId }, { slot: 1 })
        .lean<Array<{ slot: number }>>();
      const taken = new Set(held.map((d) => d.slot));
      let slot = 0;
      while (taken.has(slot)) slot++;
      if (slot >= max) return 'limit_reached';
      const doc: DesignDoc = {
        _id: input.id,
        accountId: input.accountId,
        name: input.name,
        options: JSON.stringify(input.options),
        createdAt: input.createdAt,
        updatedAt: input.createdAt,
        slot,
      };
      try {
        await this.#designs.create(doc);
        return toRecord(doc);
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
    }
    throw new Error('could not take a design slot under contention; retry');
  }

  async list(accountId: string): Promise<DesignRecord[]> {
    const docs = await this.#designs.find({ accountId }).sort({ createdAt: -1, _id: 1 }).lean<DesignDoc[]>();
    return docs.map(toRecord);
  }

  async get(accountId: string, id: string): Promise<DesignRecord | undefined> {
    const doc = await this.#designs.findOne({ _id: id, accountId }).lean<DesignDoc>();
    return doc ? toRecord(doc) : undefined;
  }

  async update(
    accountId: string,
    id: string,
    change: { name?: string | undefined; options?: DesignOptions | undefined },
    at: Date,
  ): Promise<DesignRecord | undefined> {
    const set: Record<string, unknown> = { updatedAt: at };
    if (change.name !== undefined) set.name = change.name;
    if (change.options !== undefined) set.options = JSON.stringify(change.options);
    const doc = await this.#designs
      .findOneAndUpdate({ _id: id, accountId }, { $set: set }, { new: true })
      .lean<DesignDoc>();
    return doc ? toRecord(doc) : undefined;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return (await this.#designs.deleteOne({ _id: id, accountId })).deletedCount > 0;
  }
}
