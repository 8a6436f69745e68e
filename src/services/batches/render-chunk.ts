// Use case: render one chunk of a batch — idempotent per item (batch id + index), so a chunk run twice loses and doubles nothing.
import { isFinished, type Batch, type BatchItemState } from '../../domain/batches/batch.js';
import { ApiError } from '../../domain/errors.js';
import type { BatchResults } from '../../domain/ports/batch-results.js';
import type { BatchStore } from '../../domain/ports/batch-store.js';
import type { Renderer } from '../../domain/ports/renderer.js';
import type { UsageMeter } from '../../domain/ports/usage-meter.js';

export interface RenderChunkDeps {
  batches: BatchStore;
  results: BatchResults;
  meter: UsageMeter;
  renderer: Pick<Renderer, 'render'>;
  clock: () => Date;
  /** Resolves when lane `lane` may take the renderer (the embedded service lets synchronous requests go first). */
  turn?: (lane: number) => Promise<void>;
  /** Items rendered at once (default 1); the embedded service uses its pool's thread count. */
  concurrency?: number;
  /** Told once, by whichever chunk finishes the batch's last item. */
  onFinished?: (batch: Batch) => Promise<void>;
}

export interface Chunk {
  batchId: string;
  from: number;
  to: number;
}

/** Faults that say nothing about the item: retried by the runner rather than failing it. */
function isTransient(error: unknown): boolean {
  return error instanceof ApiError && (error.code === 'overloaded' || error.code === 'unavailable');
}

/** Returns how many items this run moved out of pending. */
export async function renderChunk(deps: RenderChunkDeps, chunk: Chunk): Promise<number> {
  const batch = await deps.batches.getById(chunk.batchId);
  if (!batch || isFinished(batch.status)) return 0;
  await deps.batches.markRunning(batch.id, deps.clock());
  const pending = (await deps.batches.items(batch.id, chunk.from, chunk.to)).filter((item) => item.state === 'pending');
  let moved = 0;
  const lanes = Math.max(1, deps.concurrency ?? 1);
  let next = 0;
  const lane = async (_: unknown, laneIndex: number) => {
    while (next < pending.length) {
      await deps.turn?.(laneIndex);
      if (next >= pending.length) break;
      const item = pending[next++]!;
      if (await renderItem(deps, batch, item)) moved++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, pending.length) }, lane));
  return moved;
}

async function renderItem(deps: RenderChunkDeps, batch: Batch, item: BatchItemState): Promise<boolean> {
  let outcome;
  try {
    const bytes = await deps.renderer.render(item.spec, { accountId: batch.accountId, plan: batch.plan });
    // The file first, then the state: a crash between them re-renders the item into the same file.
    await deps.results.put(batch.id, item.index, bytes);
    outcome = await deps.batches.finishItem(batch.id, { index: item.index, state: 'succeeded' }, deps.clock());
  } catch (error) {
    if (!(error instanceof ApiError) || isTransient(error)) throw error;
    // Refund first (idempotent per item), then record the failure: a crash between them refunds once and retries the record.
    await deps.meter.refundBatchItems({ accountId: batch.accountId, period: batch.period, batchId: batch.id, items: [{ index: item.index, fingerprint: item.fingerprint }] });
    outcome = await deps.batches.finishItem(batch.id, { index: item.index, state: 'failed', errorCode: error.code }, deps.clock());
  }
  if (outcome.moved && isFinished(outcome.batch.status)) await deps.onFinished?.(outcome.batch);
  return outcome.moved;
}
