// An account's records capped by a unique per-account slot index (activeSlot for active keys, slot for designs, logos
// and domains): the first free slot, taken by an insert that may lose a race, and freed when a key is revoked.
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

/**
 * Revokes the account's key `keyId` at `at` and frees its active slot, in one update; a key revoked before keeps its
 * first time. Answers the key as stored after, without the `hidden` fields, or undefined when the account has no such
 * key.
 */
export async function revokeFreeingSlot<D>(
  model: Model<D>,
  accountId: string,
  keyId: string,
  at: Date,
  hidden: Readonly<Record<string, 0>>,
): Promise<D | undefined> {
  const revoked = await model
    .findOneAndUpdate(
      { _id: keyId, accountId, revokedAt: null },
      { $set: { revokedAt: at }, $unset: { activeSlot: 1 } },
      { new: true, projection: hidden },
    )
    .lean<D>();
  return revoked ?? (await model.findOne({ _id: keyId, accountId }, hidden).lean<D>()) ?? undefined;
}

/** Slots for "unlimited" plans: far past any real account, small enough to scan. */
const UNLIMITED_SLOTS = 1_000_000;

/**
 * Inserts the document `make(slot)` builds in the account's lowest free `slot` below `max` (null: unlimited), or
 * answers 'limit_reached'. Of two writers racing for the last free slot the unique (accountId, slot) index lets one
 * in; each lost race means another record took a slot. `refusal`, asked before each attempt, ends it with its answer
 * when it has one (a hostname another account holds).
 */
export async function insertInLowestSlot<D extends { slot: number }, R = never>(
  model: Model<D>,
  accountId: string,
  max: number | null,
  make: (slot: number) => D,
  what: string,
  refusal: () => Promise<R | undefined> = async () => undefined,
): Promise<D | 'limit_reached' | R> {
  const limit = max ?? UNLIMITED_SLOTS;
  for (let attempt = 0; attempt <= Math.min(limit, 1000) * 2 + 2; attempt++) {
    const refused = await refusal();
    if (refused !== undefined) return refused;
    const held = await model.find({ accountId }, { slot: 1 }).lean<Array<{ slot: number }>>();
    const taken = new Set(held.map((d) => d.slot));
    let slot = 0;
    while (taken.has(slot)) slot++;
    if (slot >= limit) return 'limit_reached';
    const doc = make(slot);
    try {
      await model.create(doc);
      return doc;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }
  throw new Error(`could not take a ${what} slot under contention; retry`);
}
