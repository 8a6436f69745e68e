// Port: batches and their items, shared by every API instance and render process.
import type { Batch, BatchItem, BatchItemState } from '../batches/batch.js';

export interface BatchPage {
  batches: Batch[];
  /** Pass as `before` for the next (older) page; absent on the last page. */
  next: string | undefined;
}

/** A finished batch's webhook, taken for one delivery attempt. */
export interface DueWebhook {
  batch: Batch;
  /** Attempts already made before this one. */
  attempts: number;
}

export interface WebhookOutcome {
  /** Attempts made, this one included. */
  attempts: number;
  delivered: boolean;
  /** When not delivered: the next attempt's time; absent when delivery is given up. */
  retryAt?: Date | undefined;
  /** The target is one the sender may not reach (private address): never attempted again. */
  refused?: boolean | undefined;
  /** Why this attempt was not delivered (an HTTP status, a network error, the refusal), shown in the batch view. */
  error?: string | undefined;
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
 *   them, and the batch is finished (completed or failed) by the call that finishes its last item. That same
 *   step makes the batch's webhook due (when it has a webhookUrl), so a crash right after loses no webhook.
 * - A due webhook is claimed for one attempt at a time: `claimWebhook` hands it to one caller and hides it
 *   from every other until `settleWebhook` records the outcome or the lease runs out (the sender died).
 * - `cancel` moves every pending item to `cancelled` at once and returns them (to be refunded).
 */
export interface BatchStore {
  create(batch: Batch, items: readonly BatchItem[]): Promise<{ batch: Batch; created: boolean }>;
  get(accountId: string, id: string): Promise<Batch | undefined>;
  /** For render processes, which have a batch id and no account. */
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
  /**
   * The account's webhook signing secret, made on first use (`whsec_` + base64 of 32 random bytes), the same for every
   * later call.
   */
  webhookSecret(accountId: string): Promise<string>;
  /**
   * The secrets that sign the account's webhooks at `now`: the current one first (made on first use), then the one a
   * rotation replaced, while `now` is before the end of its overlap.
   */
  webhookSigningSecrets(accountId: string, now: Date): Promise<string[]>;
  /**
   * Atomically makes a new current secret and returns it; the one it replaces keeps signing until `previousUntil`.
   * A secret replaced earlier stops signing at once (at most two sign at a time).
   */
  rotateWebhookSecret(accountId: string, previousUntil: Date): Promise<string>;
  /** Ids of batches whose webhook is due at `now` (not delivered, not given up, not held by a claim), soonest first. */
  dueWebhooks(now: Date, limit: number): Promise<string[]>;
  /**
   * Takes the batch's webhook for one attempt when it is due at `now`, holding it for `leaseMs`; undefined when it is
   * not due.
   */
  claimWebhook(batchId: string, now: Date, leaseMs: number): Promise<DueWebhook | undefined>;
  /** Records the outcome of the attempt a claim was taken for. */
  settleWebhook(batchId: string, outcome: WebhookOutcome): Promise<void>;
  /** Removes the batch and its items; true when it existed. */
  remove(batchId: string): Promise<boolean>;
  /** Ids of batches finished before `before` (retention), oldest first. */
  finishedBefore(before: Date, limit: number): Promise<string[]>;
}
