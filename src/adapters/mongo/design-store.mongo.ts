// DesignStore on MongoDB: options as JSON text per account; the count limit held by a per-account unique slot, as the
// logos' is.
import type { Model } from 'mongoose';
import type { DesignOptions } from '../../domain/design.js';
import type { DesignChange, DesignRecord, DesignStore, NewDesign } from '../../domain/ports/design-store.js';
import type { OwnFields } from '../record-fields.js';
import { insertInLowestSlot } from './active-slots.js';
import type { DesignDoc } from './models.js';

/** The document holds the record's own fields (under `_id` for `id`, the options as JSON text) and its slot. */
function toRecord({ _id, options, slot: _slot, ...fields }: DesignDoc): DesignRecord {
  return {
    id: _id,
    ...(fields satisfies OwnFields<DesignRecord, typeof fields>),
    options: JSON.parse(options) as DesignOptions,
  };
}

export class MongoDesignStore implements DesignStore {
  readonly #designs: Model<DesignDoc>;

  constructor(designs: Model<DesignDoc>) {
    this.#designs = designs;
  }

  async createWithinLimit(input: NewDesign, maxDesigns: number | null): Promise<DesignRecord | 'limit_reached'> {
    const doc = await insertInLowestSlot(
      this.#designs,
      input.accountId,
      maxDesigns,
      (slot) => ({
        _id: input.id,
        accountId: input.accountId,
        name: input.name,
        options: JSON.stringify(input.options),
        createdAt: input.createdAt,
        updatedAt: input.createdAt,
        slot,
      }),
      'design',
    );
    return doc === 'limit_reached' ? doc : toRecord(doc);
  }

  async list(accountId: string): Promise<DesignRecord[]> {
    const docs = await this.#designs.find({ accountId }).sort({ createdAt: -1, _id: 1 }).lean<DesignDoc[]>();
    return docs.map(toRecord);
  }

  async get(accountId: string, id: string): Promise<DesignRecord | undefined> {
    const doc = await this.#designs.findOne({ _id: id, accountId }).lean<DesignDoc>();
    return doc ? toRecord(doc) : undefined;
  }

  async update(accountId: string, id: string, change: DesignChange, at: Date): Promise<DesignRecord | undefined> {
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
