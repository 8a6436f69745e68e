// Use cases: cancel a batch still rendering (its unrendered items refunded), or delete a finished one and its files.
import { isFinished, type Batch } from '../../domain/batches/batch.js';
import { ApiError } from '../../domain/errors.js';
import type { BatchQueue } from '../../domain/ports/batch-queue.js';
import type { BatchResults } from '../../domain/ports/batch-results.js';
import type { BatchStore } from '../../domain/ports/batch-store.js';
import type { UsageMeter } from '../../domain/ports/usage-meter.js';

export interface CancelBatchDeps {
  batches: BatchStore;
  results: BatchResults;
  meter: UsageMeter;
  clock: () => Date;
  /** Where the batch is rendered: a cancelled batch is not deleted while a chunk of it is still being drawn. */
  queue: Pick<BatchQueue, 'rendering'>;
}

export function batchNotFound(id: string): ApiError {
  return new ApiError(
    'not_found',
    `no batch ${id} in this account (finished batches are deleted after their retention)`,
  );
}

/**
 * Running or queued: cancelled, and the batch is returned. Finished: its results and record are deleted (undefined).
 * A cancelled batch whose last chunk is still being drawn is returned again unchanged, so a retried cancel never
 * deletes what the cancel kept: it is deleted by a DELETE that comes once its renders have settled.
 */
export async function cancelOrDeleteBatch(
  deps: CancelBatchDeps,
  accountId: string,
  id: string,
): Promise<Batch | undefined> {
  const batch = await deps.batches.get(accountId, id);
  if (!batch) throw batchNotFound(id);
  if (batch.status === 'cancelled' && (await deps.queue.rendering(batch.id))) return batch;
  if (isFinished(batch.status)) {
    await deps.results.remove(batch.id);
    await deps.batches.remove(batch.id);
    return undefined;
  }
  const outcome = await deps.batches.cancel(accountId, id, deps.clock());
  if (!outcome) throw batchNotFound(id);
  await deps.meter.refundBatchItems({
    accountId,
    period: outcome.batch.period,
    batchId: outcome.batch.id,
    items: outcome.cancelled.map((item) => ({ index: item.index, fingerprint: item.fingerprint })),
  });
  return outcome.batch;
}

/** Retention: batches finished before `before` lose their files, then their record. Returns how many went. */
export async function expireBatches(
  deps: Pick<CancelBatchDeps, 'batches' | 'results'>,
  before: Date,
  limit = 500,
): Promise<number> {
  const ids = await deps.batches.finishedBefore(before, limit);
  for (const id of ids) {
    await deps.results.remove(id);
    await deps.batches.remove(id);
  }
  return ids.length;
}
