// Where batches render, decided from config: in this process (embedded default) or on the BullMQ render queue (Redis
// configured).
import type { AdapterLog } from '../adapters/adapter-log.js';
import type { Adapters } from '../adapters/contract.js';
import { InProcessBatchRunner, yieldingTo } from '../adapters/queue/in-process-batch-runner.js';
import type { Config } from '../config.js';
import { BATCH_GROUPS_PER_THREAD } from '../domain/batches/batch.js';
import type { BatchQueue } from '../domain/ports/batch-queue.js';
import type { BatchStore } from '../domain/ports/batch-store.js';
import type { WebhookSender } from '../domain/ports/webhook-sender.js';
import { unrefSleep, webhookOnFinish } from '../services/batches/batch-webhook.js';
import type { RenderChunkDeps } from '../services/batches/render-chunk.js';

export interface RunningBatchQueue {
  queue: BatchQueue;
  /** After the app is ready: the in-process runner resumes what a previous run left unfinished. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** What runs when a batch finishes: its webhook, sent in the background by whichever process finished it. */
export function batchFinishHook(
  batches: BatchStore,
  sender: WebhookSender,
  clock: () => Date,
  log: AdapterLog,
): NonNullable<RenderChunkDeps['onFinished']> {
  return webhookOnFinish({ batches, sender, clock, sleep: unrefSleep, log });
}

export async function createBatchQueue(
  config: Pick<Config, 'redis' | 'batchConcurrency'>,
  adapters: Adapters,
  options: { clock: () => Date; log: AdapterLog; webhookSender: WebhookSender; syncBusy?: () => boolean },
): Promise<RunningBatchQueue | undefined> {
  const { batches, batchResults } = adapters;
  if (!batches || !batchResults) return undefined;
  if (adapters.jobs === 'jobs-process' && config.redis) {
    // BullMQ and ioredis load only beside Redis: the embedded default starts without them.
    const { BullRenderQueue, bullPrefix } = await import('../adapters/queue/render-queue.bullmq.js');
    const queue = new BullRenderQueue({ redis: config.redis, prefix: bullPrefix(), log: options.log });
    return { queue, start: async () => {}, stop: () => queue.close() };
  }
  const pipeline = adapters.renderer;
  const threads = pipeline.stats().pool.threads;
  const runner = new InProcessBatchRunner(
    {
      batches,
      results: batchResults,
      meter: adapters.meter,
      logos: adapters.logos,
      renderer: { renderMany: (specs, caller, files) => pipeline.renderManyOnPool(specs, caller, files) },
      clock: options.clock,
      // Every thread while the API is quiet; one group at a time while synchronous requests are in flight.
      turn: yieldingTo(() => pipeline.othersQueued(), options.syncBusy),
      concurrency: config.batchConcurrency ?? threads * BATCH_GROUPS_PER_THREAD,
      onFinished: batchFinishHook(batches, options.webhookSender, options.clock, options.log),
    },
    { log: options.log },
  );
  return {
    queue: runner,
    // Resuming never stops the service from starting: a store that is down now leaves the batches pending for the next
    // start.
    start: async () => {
      try {
        const resumed = await runner.resume();
        if (resumed > 0) options.log.info({ batches: resumed }, 'resuming unfinished batches');
      } catch (err) {
        options.log.warn({ err }, 'could not resume unfinished batches');
      }
    },
    stop: () => runner.stop(),
  };
}
