// Use case: queue again the batches an API stored but never queued (it died between the two): chunk jobs are
// idempotent, so queuing twice is safe.
import type { BatchQueue } from '../../domain/ports/batch-queue.js';
import type { BatchStore } from '../../domain/ports/batch-store.js';

export interface RequeueBatchesDeps {
  batches: Pick<BatchStore, 'unfinished' | 'getById'>;
  queue: BatchQueue;
  clock: () => Date;
}

/**
 * Long past the store-then-queue step of one request: a batch still queued after this has lost its chunks, or waits
 * behind others (then queuing adds nothing).
 */
export const STALLED_QUEUED_MS = 60_000;

const SCAN_LIMIT = 10_000;

/** Returns how many batches were queued again. */
export async function requeueStalledBatches(
  deps: RequeueBatchesDeps,
  olderThanMs = STALLED_QUEUED_MS,
): Promise<number> {
  const before = deps.clock().getTime() - olderThanMs;
  let requeued = 0;
  for (const id of await deps.batches.unfinished(SCAN_LIMIT)) {
    const batch = await deps.batches.getById(id);
    // A running batch has had a chunk taken: its jobs exist, and BullMQ runs them again after any crash.
    if (!batch || batch.status !== 'queued' || batch.createdAt.getTime() > before) continue;
    await deps.queue.enqueue(batch);
    requeued++;
  }
  return requeued;
}
