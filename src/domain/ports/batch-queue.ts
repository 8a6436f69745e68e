// Port: hands an accepted batch to whoever renders it (the in-process runner, or render workers through BullMQ).
import type { Batch } from '../batches/batch.js';

/** Contract: every chunk of the batch is rendered at least once after `enqueue` resolves, even across crashes. */
export interface BatchQueue {
  enqueue(batch: Batch): Promise<void>;
}
