// A batch's progress as the Batches page shows it: one source for the server-drawn row and the JSON the page polls.
import { z } from 'zod';
import { isFinished, type Batch } from '../../domain/batches/batch.js';
import { viewHelpers } from './view-helpers.js';

export const BatchProgressSchema = z.object({
  id: z.string(),
  status: z.string(),
  /** Items rendered or failed: a cancelled batch's cancelled items were never drawn, so its bar stops there. */
  done: z.number().int(),
  total: z.number().int(),
  finished: z.boolean(),
  /** The bar's accessible name, e.g. `Running: 3 of 10 items done`. */
  label: z.string(),
  /** The line under the bar, e.g. `3 rendered, 1 failed of 10`. */
  summary: z.string(),
  /** Where the finished batch's ZIP is downloaded; null while it runs. */
  archiveUrl: z.string().nullable(),
});
export type BatchProgress = z.infer<typeof BatchProgressSchema>;

export function batchProgress(batch: Batch, base: string): BatchProgress {
  const done = batch.succeeded + batch.failed;
  const state = batch.status.charAt(0).toUpperCase() + batch.status.slice(1);
  const n = viewHelpers.number;
  const finished = isFinished(batch.status);
  return {
    id: batch.id,
    status: batch.status,
    done,
    total: batch.total,
    finished,
    label: `${state}: ${done} of ${batch.total} items done${batch.cancelled ? `, ${batch.cancelled} cancelled` : ''}`,
    summary:
      [
        `${n(batch.succeeded)} rendered`,
        ...(batch.failed ? [`${n(batch.failed)} failed`] : []),
        ...(batch.cancelled ? [`${n(batch.cancelled)} cancelled`] : []),
      ].join(', ') + ` of ${n(batch.total)}`,
    archiveUrl: finished ? `${base}/batches/${encodeURIComponent(batch.id)}/archive` : null,
  };
}
