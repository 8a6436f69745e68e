// Port: batches and their items, shared by every API instance and render worker.
import type { Batch, BatchItem, BatchItemState } from '../batches/batch.js';

export interface BatchPage {
  batches: Batch[];
  /** Pass as `before` for the next (older) page; absent on the last page. */
  next: string | undefined;
}

export interface FinishedItem {
  index: number;
  state: 'succeeded' | 'failed';
  errorCode?: string | undefined;
}

/**
 * Contract:
 * - `create` stores the batch and every item at once. With an idempotency key already used by the
 *   account it stores nothing and returns the batch made with that key (`created: false`).
 * - `finishItems` moves each item out of `pending` once, all in one step: an item already moved (a chunk
 *   run again after a crash) changes nothing and is not counted in `moved`. The batch's counts move with
 *   them, and the batch is finished (completed or failed) by the call that finishes its last item.
 * - `cancel` moves every pending item to `cancelled` at once and returns them (to be refunded).
 */
export interface BatchStore {
  create(batch: Batch, items: readonly BatchItem[]): Promise<{ batch: Batch; created: boolean }>;
  get(accountId: string, id: string): Promise<Batch | undefined>;
  /** For render workers, which have a batch id and no account. */
  getById(id: string): Promise<Batch | undefined>;
  byIdempotencyKey(accountId: string, key: string): Promise<Batch | undefined>;
  /** Newest first. */
  list(accountId: string, options: { limit: number; before?: string | undefined }): Promise<BatchPage>;
  /** Batches of the account still queued or running. */
  inFlight(accountId: string): Promise<number>;
  /** Items with index in [from, to), in index order. */
  items(batchId: string, from: number, to: number): Promise<BatchItemState[]>;
  markRunning(batchId: string, at: Date): Promise<void>;
  finishItems(batchId: string, items: readonly FinishedItem[], at: Date): Promise<{ moved: number; batch: Batch }>;
  cancel(accountId: string, id: string, at: Date): Promise<{ batch: Batch; cancelled: BatchItem[] } | undefined>;
  /** Ids of batches still queued or running, oldest first: what a restarted embedded service resumes. */
  unfinished(limit: number): Promise<string[]>;
  /** The account's webhook signing secret, made on first use (`whsec_` + base64 of 32 random bytes), the same for every later call. */
  webhookSecret(accountId: string): Promise<string>;
  /** Removes the batch and its items; true when it existed. */
  remove(batchId: string): Promise<boolean>;
  /** Ids of batches finished before `before` (retention), oldest first. */
  finishedBefore(before: Date, limit: number): Promise<string[]>;
}
