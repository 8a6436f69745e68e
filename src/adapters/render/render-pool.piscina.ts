// A warm Piscina pool of render threads with a bounded queue.
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { workerThreadEntry } from '../../package-root.js';
import { ApiError } from '../../domain/errors.js';
import type { RenderedImage } from '../../domain/rendered-image.js';
import type { RenderSpec } from '../../domain/render-options.js';
import type { RenderTaskResult, StoredGroupTask, StoredTaskResult } from '../../render/render-task.js';
import type { RenderPoolStats } from '../contract.js';
import { imageOrError, refusalError } from './render-outcome.js';

// Piscina signals a full queue only through these messages (its Errors table).
const QUEUE_FULL_MESSAGES = new Set(['Task queue is at limit', 'No task queue available and all Workers are busy']);

/**
 * The thread running the task died (exit, heap limit, pool closing): a transient fault, and Piscina starts a
 * replacement.
 */
function isThreadLoss(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if ((error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY') return true;
  return error.message.startsWith('worker exited with code') || error.message === 'Terminating worker thread';
}

export interface RenderPoolOptions {
  /** Told when a thread dies outside a task (the pool replaces it). */
  onThreadError?: (error: unknown) => void;
  threads?: number;
  /** Tasks allowed to wait for a thread; past it requests get 503 overloaded. */
  maxQueue?: number;
  /** Heap ceiling per thread, so one pathological render cannot take the process down. */
  maxOldGenerationSizeMb?: number;
  /**
   * The thread entry file (default workers/render-thread); the fault tests point it at a fixture that crashes on
   * demand.
   */
  filename?: string;
}

type PoolTask = RenderSpec | RenderSpec[] | StoredGroupTask;
type PoolResult = RenderTaskResult | RenderTaskResult[] | StoredTaskResult[];

export class RenderPool {
  readonly #pool: Piscina<PoolTask, PoolResult>;
  /** Threads the pool keeps (piscina replaces one that dies). */
  readonly threads: number;
  /** Tasks handed to Piscina and not settled yet, running or queued. */
  #inFlight = 0;

  constructor(options: RenderPoolOptions = {}) {
    const threads = options.threads ?? Math.max(1, availableParallelism());
    this.threads = threads;
    const { filename, execArgv } = workerThreadEntry('render-thread');
    this.#pool = new Piscina({
      filename: options.filename ?? filename,
      execArgv,
      minThreads: threads, // kept warm: a cold thread costs far more than a render
      maxThreads: threads,
      idleTimeout: Number.POSITIVE_INFINITY,
      maxQueue: options.maxQueue ?? threads * 64,
      resourceLimits: { maxOldGenerationSizeMb: options.maxOldGenerationSizeMb ?? 256 },
    });
    // A thread that dies while idle is reported on the pool itself; unheard, that 'error' would end the process.
    // Piscina replaces the thread either way, so this is only worth a log line.
    this.#pool.on('error', (error: unknown) => options.onThreadError?.(error));
  }

  async render(spec: RenderSpec): Promise<RenderedImage> {
    return imageOrError((await this.#run(spec)) as RenderTaskResult, spec);
  }

  /**
   * Several specs as one task: each gets its image or its refusal (too long, too small); a lost thread fails them all.
   * Given `files` (one per spec), the thread writes each image there itself and it is answered 'stored'.
   */
  renderMany(specs: RenderSpec[]): Promise<Array<RenderedImage | ApiError>>;
  renderMany(specs: RenderSpec[], files: string[] | undefined): Promise<Array<RenderedImage | 'stored' | ApiError>>;
  async renderMany(specs: RenderSpec[], files?: string[]): Promise<Array<RenderedImage | 'stored' | ApiError>> {
    // Refusals are data: the group still succeeds, each spec answered with its own outcome.
    const results = (await this.#run(files ? { specs, files } : specs)) as Array<RenderTaskResult | StoredTaskResult>;
    return results.map((result, i) => {
      if (!result.ok) return refusalError(result, specs[i]!);
      return 'stored' in result ? 'stored' : { bytes: result.bytes, symbol: result.symbol };
    });
  }

  async #run(task: PoolTask): Promise<PoolResult> {
    this.#inFlight++;
    try {
      return await this.#pool.run(task);
    } catch (error) {
      if (error instanceof Error && QUEUE_FULL_MESSAGES.has(error.message)) {
        throw new ApiError('overloaded', 'the render queue is full; retry shortly', { retryAfterSeconds: 1 });
      }
      if (isThreadLoss(error))
        throw new ApiError('unavailable', 'the render thread failed; retry shortly', {
          retryAfterSeconds: 1,
          cause: error,
        });
      throw error;
    } finally {
      this.#inFlight--;
    }
  }

  /** Whether every thread has a task already (so another would wait in the queue). */
  allThreadsBusy(): boolean {
    return this.#inFlight >= this.threads;
  }

  /**
   * Tasks waiting for a thread: cheap, unlike stats() (piscina's utilization summarises its run-time histogram on every
   * read).
   */
  queueSize(): number {
    return this.#pool.queueSize;
  }

  /** Pool gauges for /metrics and /readyz. */
  stats(): RenderPoolStats {
    return {
      threads: this.#pool.threads.length,
      queueSize: this.#pool.queueSize,
      utilization: this.#pool.utilization,
      tasksCompleted: this.#pool.completed,
    };
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }
}
