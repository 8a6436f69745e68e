// An account's active records capped by a unique (account, activeSlot) index: the first free slot, taken by an insert
// that may lose a race.
import type { Model } from 'mongoose';
import { isDuplicateKey } from './connection.js';

/**
 * Inserts the document `make(slot)` builds in the account's lowest free slot below `maxActive`, or answers
 * 'limit_reached'. Of two writers racing for the last free slot the unique index lets one in; every lost race
 * means another record took a slot, so the loop ends.
 */
export async function insertInFreeSlot<D>(
  model: Model<D>,
  accountId: string,
  maxActive: number,
  make: (slot: number) => D,
  what: string,
): Promise<D | 'limit_reached'> {
  for (let attempt = 0; attempt <= maxActive * 2 + 2; attempt++) {
    const held = await model
      .find({ accountId, activeSlot: { $exists: true } }, { activeSlot: 1 })
      .lean<Array<{ activeSlot: number }>>();
    const taken = new Set(held.map((k) => k.activeSlot));
    // Slots above a lowered limit still count: the cap is on how many are active, not on which slots they hold.
    if (taken.size >= maxActive) return 'limit_reached';
    let slot = 0;
    while (taken.has(slot)) slot++;
    if (slot >= maxActive) return 'limit_reached';
    const doc = make(slot);
    try {
      await model.create(doc);
      return doc;
    } catch (error) {
      if (!isDuplicateKey(error) || !/activeSlot/.test(String((error as Error).message))) throw error;
    }
  }
  throw new Error(`could not take a ${what} slot under contention; retry`);
}
