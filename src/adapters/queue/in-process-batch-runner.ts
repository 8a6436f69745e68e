// Renders batches inside the API process (the embedded default): one chunk at a time, yielding to synchronous requests.
import { setTimeout as sleep } from 'node:timers/promises';
import { chunksOf, type Batch } from '../../domain/batches/batch.js';
import { ApiError } from '../../domain/errors.js';
import type { BatchQueue } from '../../domain/ports/batch-queue.js';
import { renderChunk, type Chunk, type RenderChunkDeps } from '../../services/batches/render-chunk.js';
import { SILENT_LOG, type AdapterLog } from '../adapter-log.js';

/**
 * Items per chunk in this process, larger than a queue job's (BATCH_CHUNK_SIZE): chunks run one after another,
 * and each one's last groups leave a render thread idle while they finish, so fewer chunks waste less. A chunk
 * stops starting groups once its batch is cancelled, so a larger one does not render on after a cancel.
 */
const CHUNK_SIZE = 500;
const MAX_ATTEMPTS = 5;
const RETRY_MS = 500;

export interface InProcessBatchRunnerOptions {
  log?: AdapterLog;
}

/**
 * A FIFO of chunks held in memory; the store is the truth. After a restart `resume()` queues every
 * unfinished batch again, and rendered items are skipped, so a crash loses nothing and doubles nothing.
 */
export class InProcessBatchRunner implements BatchQueue {
  readonly #deps: RenderChunkDeps;
  readonly #log: AdapterLog;
  readonly #chunks: Array<Chunk & { attempts: number }> = [];
  /** Chunks being rendered now, by batch id. */
  readonly #active = new Map<string, number>();
  #draining: Promise<void> | undefined;
  #stopped = false;

  constructor(deps: RenderChunkDeps, options: InProcessBatchRunnerOptions = {}) {
    this.#deps = deps;
    this.#log = options.log ?? SILENT_LOG;
  }

  async enqueue(batch: Pick<Batch, 'id' | 'total'>): Promise<void> {
    for (const { from, to } of chunksOf(batch.total, CHUNK_SIZE))
      this.#chunks.push({ batchId: batch.id, from, to, attempts: 0 });
    this.#drain();
  }

  async rendering(batchId: string): Promise<boolean> {
    return this.#active.has(batchId);
  }

  /** Queues the batches a previous run left unfinished. */
  async resume(): Promise<number> {
    const ids = await this.#deps.batches.unfinished(10_000);
    for (const id of ids) {
      const batch = await this.#deps.batches.getById(id);
      if (batch) await this.enqueue(batch);
    }
    return ids.length;
  }

  #drain(): void {
    if (this.#draining || this.#stopped) return;
    this.#draining = this.#run().finally(() => {
      this.#draining = undefined;
      if (this.#chunks.length > 0) this.#drain();
    });
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      const chunk = this.#chunks.shift();
      if (!chunk) return;
      this.#active.set(chunk.batchId, (this.#active.get(chunk.batchId) ?? 0) + 1);
      try {
        await renderChunk(this.#deps, chunk);
      } catch (error) {
        const transient = error instanceof ApiError && (error.code === 'overloaded' || error.code === 'unavailable');
        if (++chunk.attempts >= MAX_ATTEMPTS) {
          // Left pending in the store: the next start resumes it.
          this.#log.error(
            { err: error, batchId: chunk.batchId, from: chunk.from },
            'batch chunk failed repeatedly; left for the next start',
          );
          continue;
        }
        this.#log.warn(
          { err: error, batchId: chunk.batchId, from: chunk.from, transient },
          'batch chunk failed; retrying',
        );
        this.#chunks.push(chunk);
        await sleep(RETRY_MS * chunk.attempts);
      } finally {
        const left = this.#active.get(chunk.batchId)! - 1;
        if (left === 0) this.#active.delete(chunk.batchId);
        else this.#active.set(chunk.batchId, left);
      }
    }
  }

  /** Stops after the chunk being rendered; what is left stays pending in the store. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#draining;
  }
}

/**
 * The batch's turn on a renderer shared with synchronous requests: always one event-loop turn; no new
 * batch render while requests wait in the pool's queue; and while synchronous requests are in flight
 * (`busy`), only lane 0 renders, so they keep the other threads and the event loop. Each wait is bounded.
 */
export function yieldingTo(
  poolQueue: () => number,
  busy: () => boolean = () => false,
  maxWaitMs = 1_000,
): (lane: number) => Promise<void> {
  return async (lane) => {
    await new Promise((resolve) => setImmediate(resolve));
    const deadline = Date.now() + maxWaitMs;
    const waiting = () => poolQueue() > 0 || (lane > 0 && busy());
    while (waiting() && Date.now() < deadline) await sleep(lane > 0 ? 5 : 1);
  };
}
