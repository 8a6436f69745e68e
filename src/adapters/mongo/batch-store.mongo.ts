// BatchStore on MongoDB without transactions: items move by conditional single-document writes, and the batch's counts
// are recounted from them.
import { randomBytes } from 'node:crypto';
import type { Model } from 'mongoose';
import {
  BATCH_CHUNK_SIZE,
  finishedStatus,
  webhookAfter,
  webhookStatusOf,
  type Batch,
  type BatchItem,
  type BatchItemState,
  type BatchStatus,
} from '../../domain/batches/batch.js';
import { newWebhookSecret, signingSecretsAt } from '../../domain/batches/webhook-secret.js';
import type * as port from '../../domain/ports/batch-store.js';
import type { RenderSpec } from '../../domain/render-options.js';
import { isDuplicateKey } from './connection.js';
import type { BatchDoc, BatchItemDoc, PartCounts, SequenceDoc, WebhookSecretDoc } from './models.js';

const UNFINISHED: BatchStatus[] = ['queued', 'running'];

const orUndefined = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

const PART_SIZE = BATCH_CHUNK_SIZE;
const COUNTED_STATES = ['succeeded', 'failed', 'cancelled'] as const;
const partOf = (index: number) => index - (index % PART_SIZE);

function totals(parts: Record<string, PartCounts> | undefined): Required<PartCounts> {
  const sum = { succeeded: 0, failed: 0, cancelled: 0 };
  for (const part of Object.values(parts ?? {})) for (const state of COUNTED_STATES) sum[state] += part[state] ?? 0;
  return sum;
}

function toBatch(doc: BatchDoc): Batch {
  return {
    ...totals(doc.parts),
    id: doc._id,
    accountId: doc.accountId,
    plan: doc.plan,
    status: doc.status,
    total: doc.total,
    period: doc.period,
    createdAt: doc.createdAt,
    startedAt: orUndefined(doc.startedAt),
    finishedAt: orUndefined(doc.finishedAt),
    webhookUrl: orUndefined(doc.webhookUrl),
    idempotencyKey: orUndefined(doc.idempotencyKey),
    requestHash: doc.requestHash,
    webhook:
      doc.webhookUrl === null
        ? undefined
        : webhookStatusOf(doc.webhookState, doc.webhookAttempts, doc.webhookError ?? null),
  };
}

function toItem(doc: BatchItemDoc): BatchItemState {
  return {
    index: doc.index,
    name: orUndefined(doc.name),
    file: doc.file,
    type: doc.type,
    fingerprint: doc.fingerprint,
    spec: JSON.parse(doc.spec) as RenderSpec,
    state: doc.state,
    errorCode: orUndefined(doc.errorCode),
    ...(doc.codeId ? { codeId: doc.codeId } : {}),
  };
}

export interface MongoBatchModels {
  batches: Model<BatchDoc>;
  batchItems: Model<BatchItemDoc>;
  sequences: Model<SequenceDoc>;
  webhookSecrets: Model<WebhookSecretDoc>;
}

/**
 * Each write touches one document, so every rule holds without a transaction (a standalone mongod has none):
 * - create writes the items first and the batch last: until the batch exists nothing reads the items, and a
 *   lost idempotency race removes its own items again;
 * - an item leaves `pending` by an update conditioned on `pending`, so of two runs of a chunk only one moves it;
 * - the batch's counts are never incremented, always recounted from its items (per part of 100, so a group's
 *   recount reads its own part) and raised with $max: a writer that dies between the items and the counts leaves
 *   them short only until the next recount (the next chunk's start recounts every part), never doubled;
 * - the batch is finished (and its webhook made due) by an update conditioned on it still being unfinished.
 */
export class MongoBatchStore implements port.BatchStore {
  readonly #batches: Model<BatchDoc>;
  readonly #items: Model<BatchItemDoc>;
  readonly #sequences: Model<SequenceDoc>;
  readonly #secrets: Model<WebhookSecretDoc>;

  constructor(models: MongoBatchModels) {
    this.#batches = models.batches;
    this.#items = models.batchItems;
    this.#sequences = models.sequences;
    this.#secrets = models.webhookSecrets;
  }

  async #nextSeq(): Promise<number> {
    const doc = await this.#sequences
      .findOneAndUpdate({ _id: 'batches' }, { $inc: { n: 1 } }, { upsert: true, returnDocument: 'after' })
      .lean<SequenceDoc>();
    return doc!.n;
  }

  async create(batch: Batch, items: readonly BatchItem[]): Promise<{ batch: Batch; created: boolean }> {
    if (batch.idempotencyKey !== undefined) {
      const existing = await this.byIdempotencyKey(batch.accountId, batch.idempotencyKey);
      if (existing) return { batch: existing, created: false };
    }
    // Straight to the driver: 50,000 items through mongoose's per-document casting would cost seconds.
    if (items.length > 0) {
      await this.#items.collection.insertMany(
        items.map((item) => ({
          batchId: batch.id,
          index: item.index,
          name: item.name ?? null,
          file: item.file,
          type: item.type,
          fingerprint: item.fingerprint,
          spec: JSON.stringify(item.spec),
          state: 'pending',
          errorCode: null,
          cancelMark: null,
          ...(item.codeId === undefined ? {} : { codeId: item.codeId }),
        })),
        { ordered: false },
      );
    }
    const doc: BatchDoc = {
      _id: batch.id,
      seq: await this.#nextSeq(),
      accountId: batch.accountId,
      plan: batch.plan,
      status: batch.status,
      total: batch.total,
      parts: {},
      period: batch.period,
      createdAt: batch.createdAt,
      startedAt: null,
      finishedAt: null,
      webhookUrl: batch.webhookUrl ?? null,
      ...(batch.idempotencyKey === undefined ? {} : { idempotencyKey: batch.idempotencyKey }),
      requestHash: batch.requestHash,
      webhookState: null,
      webhookAttempts: 0,
      webhookNextAt: null,
    };
    try {
      await this.#batches.create(doc);
      return { batch, created: true };
    } catch (error) {
      if (!isDuplicateKey(error) || batch.idempotencyKey === undefined) throw error;
      // Another request with the same key won the race: this one's items go, its batch is the answer.
      await this.#items.deleteMany({ batchId: batch.id });
      const winner = await this.byIdempotencyKey(batch.accountId, batch.idempotencyKey);
      if (!winner) throw error;
      return { batch: winner, created: false };
    }
  }

  async get(accountId: string, id: string): Promise<Batch | undefined> {
    const doc = await this.#batches.findOne({ _id: id, accountId }).lean<BatchDoc>();
    return doc ? toBatch(doc) : undefined;
  }

  async getById(id: string): Promise<Batch | undefined> {
    const doc = await this.#batches.findById(id).lean<BatchDoc>();
    return doc ? toBatch(doc) : undefined;
  }

  async byIdempotencyKey(accountId: string, key: string): Promise<Batch | undefined> {
    const doc = await this.#batches.findOne({ accountId, idempotencyKey: key }).lean<BatchDoc>();
    return doc ? toBatch(doc) : undefined;
  }

  async list(accountId: string, options: { limit: number; before?: string | undefined }): Promise<port.BatchPage> {
    let filter: Record<string, unknown> = { accountId };
    if (options.before !== undefined) {
      const cursor = await this.#batches
        .findOne({ _id: options.before, accountId }, { seq: 1 })
        .lean<Pick<BatchDoc, 'seq'>>();
      if (!cursor) return { batches: [], next: undefined };
      filter = { accountId, seq: { $lt: cursor.seq } };
    }
    // One more than asked: whether it comes back says if there is a next page.
    const docs = await this.#batches
      .find(filter)
      .sort({ seq: -1 })
      .limit(options.limit + 1)
      .lean<BatchDoc[]>();
    const batches = docs.slice(0, options.limit).map(toBatch);
    return { batches, next: docs.length > options.limit ? batches.at(-1)?.id : undefined };
  }

  async inFlight(accountId: string): Promise<number> {
    return this.#batches.countDocuments({ accountId, status: { $in: UNFINISHED } });
  }

  async items(batchId: string, from: number, to: number): Promise<BatchItemState[]> {
    const docs = await this.#items
      .find({ batchId, index: { $gte: from, $lt: to } })
      .sort({ index: 1 })
      .lean<BatchItemDoc[]>();
    return docs.map(toItem);
  }

  async markRunning(batchId: string, at: Date): Promise<void> {
    const started = await this.#batches.updateOne(
      { _id: batchId, status: 'queued' },
      { $set: { status: 'running', startedAt: at } },
    );
    // A chunk of a batch already running may be a re-run after a crash: its recount repairs counts a dead writer left
    // short.
    if (started.modifiedCount === 0) await this.#recount(batchId, at);
  }

  /** Moves each item with a write conditioned on `pending`; the states are two bulk writes, one per outcome. */
  async #moveItems(
    batchId: string,
    items: readonly port.FinishedItem[],
    state: 'succeeded' | 'failed',
  ): Promise<number> {
    const chosen = items.filter((item) => item.state === state);
    if (chosen.length === 0) return 0;
    const result = await this.#items.bulkWrite(
      chosen.map((item) => ({
        updateOne: {
          filter: { batchId, index: item.index, state: 'pending' },
          update: { $set: { state, errorCode: item.errorCode ?? null } },
        },
      })),
      { ordered: false },
    );
    return result.modifiedCount;
  }

  /**
   * Sets the counts of the parts holding `indexes` [from, to) (every part when absent) from all their items (raised
   * only: counts never go down),
   * then finishes the batch when no item is pending. Returns the batch as it stands after.
   */
  async #recount(batchId: string, at: Date, indexes?: { from: number; to: number }): Promise<Batch | undefined> {
    const parts = indexes && { index: { $gte: partOf(indexes.from), $lt: partOf(indexes.to - 1) + PART_SIZE } };
    const groups = await this.#items.aggregate<{ _id: { part: number; state: string }; n: number }>([
      { $match: { batchId, ...parts } },
      {
        $group: {
          _id: { part: { $subtract: ['$index', { $mod: ['$index', PART_SIZE] }] }, state: '$state' },
          n: { $sum: 1 },
        },
      },
    ]);
    const raised: Record<string, number> = {};
    for (const { _id, n } of groups)
      if (_id.state !== 'pending') raised[`parts.p${Math.round(_id.part)}.${_id.state}`] = n;
    const doc =
      Object.keys(raised).length === 0
        ? await this.#batches.findById(batchId).lean<BatchDoc>()
        : await this.#batches
            .findOneAndUpdate({ _id: batchId }, { $max: raised }, { returnDocument: 'after' })
            .lean<BatchDoc>();
    if (!doc) return undefined;
    const done = finishedStatus({ ...totals(doc.parts), total: doc.total });
    if (!done || !UNFINISHED.includes(doc.status)) return toBatch(doc);
    const finished = await this.#batches
      .findOneAndUpdate(
        { _id: batchId, status: { $in: UNFINISHED } },
        // The webhook is made due in the write that finishes the batch: no crash can separate the two.
        {
          $set: {
            status: done,
            finishedAt: at,
            webhookState: doc.webhookUrl === null ? null : 'due',
            webhookNextAt: at,
          },
        },
        { returnDocument: 'after' },
      )
      .lean<BatchDoc>();
    return toBatch(finished ?? (await this.#batches.findById(batchId).lean<BatchDoc>())!);
  }

  async finishItems(
    batchId: string,
    items: readonly port.FinishedItem[],
    at: Date,
  ): Promise<{ moved: number; batch: Batch }> {
    const moved =
      (await this.#moveItems(batchId, items, 'succeeded')) + (await this.#moveItems(batchId, items, 'failed'));
    const indexes = items.map((item) => item.index);
    const batch = await this.#recount(
      batchId,
      at,
      items.length === 0 ? undefined : { from: Math.min(...indexes), to: Math.max(...indexes) + 1 },
    );
    if (!batch) throw new Error(`batch ${batchId} does not exist`);
    return { moved, batch };
  }

  async cancel(accountId: string, id: string, at: Date): Promise<{ batch: Batch; cancelled: BatchItem[] } | undefined> {
    const existing = await this.#batches.findOne({ _id: id, accountId }, { _id: 1 }).lean();
    if (!existing) return undefined;
    // The mark tells exactly which items this cancel moved, whatever a render process finishes meanwhile.
    const mark = randomBytes(12).toString('base64url');
    await this.#items.updateMany({ batchId: id, state: 'pending' }, { $set: { state: 'cancelled', cancelMark: mark } });
    const cancelled = (
      await this.#items.find({ batchId: id, cancelMark: mark }).sort({ index: 1 }).lean<BatchItemDoc[]>()
    ).map(toItem);
    if (cancelled.length > 0) await this.#recount(id, at);
    const batch = await this.getById(id);
    return batch && { batch, cancelled: cancelled.map(({ state: _state, errorCode: _errorCode, ...item }) => item) };
  }

  async unfinished(limit: number): Promise<string[]> {
    const docs = await this.#batches
      .find({ status: { $in: UNFINISHED } }, { _id: 1 })
      .sort({ seq: 1 })
      .limit(limit)
      .lean<Array<Pick<BatchDoc, '_id'>>>();
    return docs.map((doc) => doc._id);
  }

  async webhookSecret(accountId: string): Promise<string> {
    try {
      await this.#secrets.updateOne(
        { _id: accountId },
        { $setOnInsert: { secret: newWebhookSecret() } },
        { upsert: true },
      );
    } catch (error) {
      // Two first uses at once: the other upsert made it.
      if (!isDuplicateKey(error)) throw error;
    }
    return (await this.#secrets.findById(accountId).lean<WebhookSecretDoc>())!.secret;
  }

  async webhookSigningSecrets(accountId: string, now: Date): Promise<string[]> {
    await this.webhookSecret(accountId);
    const doc = (await this.#secrets.findById(accountId).lean<WebhookSecretDoc>())!;
    return signingSecretsAt(doc.secret, doc.previousSecret, doc.previousUntil?.getTime(), now.getTime());
  }

  async rotateWebhookSecret(accountId: string, previousUntil: Date): Promise<string> {
    await this.webhookSecret(accountId);
    const fresh = newWebhookSecret();
    // One update with a pipeline: the secret it replaces is the one stored at that moment, whatever another rotation
    // did.
    const doc = await this.#secrets
      .findOneAndUpdate({ _id: accountId }, [{ $set: { previousSecret: '$secret', previousUntil, secret: fresh } }], {
        returnDocument: 'after',
      })
      .lean<WebhookSecretDoc>();
    return doc!.secret;
  }

  async dueWebhooks(now: Date, limit: number): Promise<string[]> {
    const docs = await this.#batches
      .find({ webhookState: 'due', webhookNextAt: { $lte: now } }, { _id: 1 })
      .sort({ webhookNextAt: 1 })
      .limit(limit)
      .lean<Array<Pick<BatchDoc, '_id'>>>();
    return docs.map((doc) => doc._id);
  }

  async claimWebhook(batchId: string, now: Date, leaseMs: number): Promise<port.DueWebhook | undefined> {
    const doc = await this.#batches
      .findOneAndUpdate(
        { _id: batchId, webhookState: 'due', webhookNextAt: { $lte: now } },
        { $set: { webhookNextAt: new Date(now.getTime() + leaseMs) } },
        { returnDocument: 'after' },
      )
      .lean<BatchDoc>();
    return doc ? { batch: toBatch(doc), attempts: doc.webhookAttempts } : undefined;
  }

  async settleWebhook(batchId: string, outcome: port.WebhookOutcome): Promise<void> {
    const { state, nextAt, error } = webhookAfter(outcome);
    await this.#batches.updateOne(
      { _id: batchId, webhookState: 'due' },
      {
        $set: {
          webhookState: state,
          webhookAttempts: outcome.attempts,
          webhookNextAt: nextAt ?? null,
          webhookError: error,
        },
      },
    );
  }

  async remove(batchId: string): Promise<boolean> {
    // The batch first: items without their batch are never read, and a crash here leaves only those.
    const removed = await this.#batches.deleteOne({ _id: batchId });
    await this.#items.deleteMany({ batchId });
    return removed.deletedCount === 1;
  }

  async finishedBefore(before: Date, limit: number): Promise<string[]> {
    const docs = await this.#batches
      .find({ finishedAt: { $ne: null, $lt: before } }, { _id: 1 })
      .sort({ finishedAt: 1 })
      .limit(limit)
      .lean<Array<Pick<BatchDoc, '_id'>>>();
    return docs.map((doc) => doc._id);
  }
}
