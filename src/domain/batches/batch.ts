// Batches: the record of one bulk render, its items, and the rules for their state (pure, no I/O).
import type { QrType } from '../content/types.js';
import type { WebhookOutcome } from '../ports/batch-store.js';
import type { PeriodId } from '../period.js';
import type { PlanId } from '../plan-catalogue.js';
import type { RenderSpec } from '../render-options.js';

export const BATCH_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

export const ITEM_STATES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;
export type ItemState = (typeof ITEM_STATES)[number];

/** Items per render job: small enough that a crash redoes little and synchronous requests wait behind little. */
export const BATCH_CHUNK_SIZE = 100;

/**
 * Groups in flight per render thread. A group is one pool task rendering several items, then their file
 * writes and one store update, so one group per thread leaves the thread idle during the I/O; two keep it busy.
 */
export const BATCH_GROUPS_PER_THREAD = 2;

/**
 * Render cost (units of one 512 px image) gathered into one pool task: one thread hop, one store
 * transaction and one refund call for the lot instead of one per item (bench/batch-cpu.ts measures it:
 * docs/decisions/batch-group-size.md).
 * Small enough that a group fits any account's share of the admission gate beside its synchronous renders,
 * and half a 2-thread instance's running room, so the one group rendering while requests are in flight leaves them the
 * rest.
 */
export const BATCH_GROUP_COST = 16;

export interface Batch {
  id: string;
  accountId: string;
  /** The account's plan at acceptance: the render admission share its items are rendered under. */
  plan: PlanId;
  status: BatchStatus;
  total: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  /** The month the batch was reserved in: refunds go back to it. */
  period: PeriodId;
  createdAt: Date;
  startedAt: Date | undefined;
  finishedAt: Date | undefined;
  webhookUrl: string | undefined;
  idempotencyKey: string | undefined;
  /** SHA-256 of the request body: a replay with the same key must send the same body. */
  requestHash: string;
  /** Where its webhook stands, when it has a webhookUrl (read from the store; absent on a batch not yet stored). */
  webhook?: BatchWebhookStatus | undefined;
}

/**
 * A batch's webhook as callers see it: waiting (to finish, or for its next attempt), delivered, given up, or never sent
 * (target refused).
 */
export interface BatchWebhookStatus {
  state: 'pending' | 'delivered' | 'failed' | 'refused';
  /** Attempts made so far. */
  attempts: number;
  /** What went wrong the last time, when the last attempt was not delivered. */
  lastError?: string | undefined;
}

/** The stored delivery state as callers see it (`null`: the batch has not finished, so its webhook waits). */
export function webhookStatusOf(
  stored: WebhookState | null,
  attempts: number,
  lastError: string | null,
): BatchWebhookStatus {
  const state =
    stored === 'delivered'
      ? 'delivered'
      : stored === 'refused'
        ? 'refused'
        : stored === 'abandoned'
          ? 'failed'
          : 'pending';
  return { state, attempts, ...(lastError !== null && state !== 'delivered' ? { lastError } : {}) };
}

/** One validated item, ready to render: nothing about it can fail validation again. */
export interface BatchItem {
  index: number;
  name: string | undefined;
  /** Its file name in the archive: the sanitised name made unique, or the index. */
  file: string;
  type: QrType;
  fingerprint: string;
  spec: RenderSpec;
  /**
   * The dynamic code the item made (`dynamic` in the request): its image encodes the code's short URL, the spec's
   * payload.
   */
  codeId?: string | undefined;
}

export interface BatchItemState extends BatchItem {
  state: ItemState;
  errorCode: string | undefined;
}

/**
 * Where a finished batch's webhook stands: due (now or at its next attempt), delivered, given up, or refused (a target
 * not allowed).
 */
export type WebhookState = 'due' | 'delivered' | 'abandoned' | 'refused';

/** The longest reason for a failed attempt a batch keeps. */
const WEBHOOK_ERROR_MAX = 500;

/**
 * What one attempt leaves behind: delivered, due again at `retryAt`, refused, or (none of these) given up; and, when
 * not delivered, why (cut to WEBHOOK_ERROR_MAX characters).
 */
export function webhookAfter(outcome: Pick<WebhookOutcome, 'delivered' | 'retryAt' | 'refused' | 'error'>): {
  state: WebhookState;
  nextAt: Date | undefined;
  error: string | null;
} {
  if (outcome.delivered) return { state: 'delivered', nextAt: undefined, error: null };
  const error = outcome.error?.slice(0, WEBHOOK_ERROR_MAX) ?? null;
  if (outcome.refused) return { state: 'refused', nextAt: undefined, error };
  return outcome.retryAt
    ? { state: 'due', nextAt: outcome.retryAt, error }
    : { state: 'abandoned', nextAt: undefined, error };
}

/** A batch is finished once no item is pending; it failed when none succeeded. */
export function finishedStatus(
  batch: Pick<Batch, 'succeeded' | 'failed' | 'cancelled' | 'total'>,
): BatchStatus | undefined {
  if (batch.succeeded + batch.failed + batch.cancelled < batch.total) return undefined;
  if (batch.cancelled > 0) return 'cancelled';
  return batch.succeeded > 0 ? 'completed' : 'failed';
}

export function isFinished(status: BatchStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** The chunks a batch is rendered in, as [from, to) index ranges. */
export function chunksOf(total: number, size = BATCH_CHUNK_SIZE): Array<{ from: number; to: number }> {
  const chunks = [];
  for (let from = 0; from < total; from += size) chunks.push({ from, to: Math.min(total, from + size) });
  return chunks;
}
