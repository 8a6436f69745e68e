// The BullMQ render queue: the API adds one job per chunk of a batch; `render` worker processes take them.
import { Queue, Worker, type Job } from 'bullmq';
import { z } from 'zod';
import { chunksOf, type Batch } from '../../domain/batches/batch.js';
import type { BatchQueue } from '../../domain/ports/batch-queue.js';
import type { Chunk } from '../../services/batches/render-chunk.js';
import { SILENT_LOG, type AdapterLog } from '../adapter-log.js';
import { bullConnection, closeRedisClient, type RedisClient, type RedisTarget } from '../redis/connection.js';

export const RENDER_QUEUE_NAME = 'render';

/**
 * BullMQ keys live beside the service's own (`qrm:` → `{qrm:bull}`), in braces so a queue's keys share one cluster
 * slot.
 */
export function bullPrefix(keyPrefix = 'qrm:'): string {
  return `{${keyPrefix}bull}`;
}

const ChunkData = z.strictObject({
  batchId: z.string().min(1).max(64),
  from: z.number().int().min(0),
  to: z.number().int().min(1),
});

const CHUNK_JOB_OPTIONS = {
  attempts: 10,
  backoff: { type: 'exponential', delay: 1_000 },
  removeOnComplete: { count: 1_000 },
  removeOnFail: { count: 5_000 },
} as const;

/** The API side: enqueues chunks; its connection fails fast instead of buffering while Redis is down. */
export class BullRenderQueue implements BatchQueue {
  readonly #options: { redis: RedisTarget | string; prefix: string; log?: AdapterLog };
  #queue: Queue | undefined;
  #connection: RedisClient | undefined;

  constructor(options: { redis: RedisTarget | string; prefix: string; log?: AdapterLog }) {
    this.#options = options;
  }

  /** Connected on the first batch: an instance that never takes one opens no connection for it. */
  #connected(): Queue {
    if (!this.#queue) {
      const { redis, prefix, log = SILENT_LOG } = this.#options;
      this.#connection = bullConnection(redis, 'producer');
      this.#queue = new Queue(RENDER_QUEUE_NAME, { connection: this.#connection, prefix });
      this.#queue.on('error', (err) => log.warn({ err }, 'render queue connection error'));
    }
    return this.#queue;
  }

  async enqueue(batch: Pick<Batch, 'id' | 'total'>): Promise<void> {
    // Job ids name the chunk: enqueuing a batch twice (a retried request) adds nothing while the first jobs exist.
    await this.#connected().addBulk(
      chunksOf(batch.total).map(({ from, to }) => ({
        name: 'chunk',
        data: { batchId: batch.id, from, to },
        opts: { ...CHUNK_JOB_OPTIONS, jobId: `${batch.id}-${from}` },
      })),
    );
  }

  /** The active jobs are few (one per render process), so reading them all is cheap. */
  async rendering(batchId: string): Promise<boolean> {
    const active = await this.#connected().getActive();
    return active.some((job) => (job.data as { batchId?: unknown } | undefined)?.batchId === batchId);
  }

  async close(): Promise<void> {
    await this.#queue?.close();
    if (this.#connection) await closeRedisClient(this.#connection);
  }
}

export interface RenderWorkerOptions {
  redis: RedisTarget | string;
  prefix: string;
  render: (chunk: Chunk) => Promise<unknown>;
  log?: AdapterLog;
  /**
   * Lock on a running chunk and the stalled check (default 30 s): a chunk whose worker died runs again within about
   * twice this.
   */
  lockMs?: number;
}

/** The render process's side: one chunk at a time (the pool inside renders its items in parallel). */
export async function startRenderWorker(options: RenderWorkerOptions): Promise<Worker> {
  const log = options.log ?? SILENT_LOG;
  const connection = bullConnection(options.redis, 'worker');
  const worker = new Worker(
    RENDER_QUEUE_NAME,
    async (job: Job) => {
      const chunk = ChunkData.parse(job.data);
      const started = Date.now();
      const moved = await options.render(chunk);
      log.info(
        { batchId: chunk.batchId, from: chunk.from, to: chunk.to, moved, durationMs: Date.now() - started },
        'batch chunk rendered',
      );
      return moved;
    },
    {
      connection,
      prefix: options.prefix,
      concurrency: 1,
      lockDuration: options.lockMs ?? 30_000,
      stalledInterval: options.lockMs ?? 30_000,
      // A chunk is retried after a crash as often as it takes: items are idempotent, so a rerun only finishes what is
      // left.
      maxStalledCount: 100,
    },
  );
  worker.on('error', (err) => log.warn({ err }, 'render worker connection error'));
  // The worker's own connection is closed with it.
  worker.on('closed', () => void closeRedisClient(connection));
  await worker.waitUntilReady();
  return worker;
}
