// Port: hands an accepted batch to whoever renders it (the in-process runner, or render processes through BullMQ).
import type { Batch } from '../batches/batch.js';

/**
 * Contract: every chunk of the batch is rendered at least once after `enqueue` resolves, even across crashes.
 * `rendering` is true while some chunk of the batch has been taken by a renderer and not yet settled (a renderer
 * that died counts until the queue takes its chunk back): a cancelled batch may still have files being written.
 */
export interface BatchQueue {
  enqueue(batch: Batch): Promise<void>;
  rendering(batchId: string): Promise<boolean>;
}
