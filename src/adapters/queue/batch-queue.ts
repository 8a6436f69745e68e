// Picks where batches render: in this process (embedded default) or on the BullMQ render queue (REDIS_URL).
import type { Config } from '../../config.js';
import type { BatchQueue } from '../../domain/ports/batch-queue.js';
import type { Adapters } from '../index.js';
import type { AdapterLog } from '../adapter-log.js';
import { InProcessBatchRunner, yieldingTo } from './in-process-batch-runner.js';
import { BullRenderQueue } from './render-queue.bullmq.js';
import { BATCH_GROUPS_PER_THREAD } from '../../domain/batches/batch.js';
import type { BatchStore } from '../../domain/ports/batch-store.js';
import { unrefSleep, webhookOnFinish } from '../../services/batches/batch-webhook.js';
import type { RenderChunkDeps } from '../../services/batches/render-chunk.js';
import { FetchWebhookSender } from '../webhooks/webhook-sender.fetch.js';

export interface RunningBatchQueue {
  queue: BatchQueue;
  /** After the app is ready: the in-process runner resumes what a previous run left unfinished. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** BullMQ keys live beside the service's own (`qrm:` → `qrm:bull`), as the background queue's do. */
export function bullPrefix(keyPrefix = 'qrm:'): string {
  return `${keyPrefix}bull`;
}

/** What runs when a batch finishes: its webhook, sent in the background by whichever process finished it. */
export function batchFinishHook(
  config: Pick<Config, 'webhookAllowPrivate'>,
  batches: BatchStore,
  clock: () => Date,
  log: AdapterLog,
): NonNullable<RenderChunkDeps['onFinished']> {
  return webhookOnFinish({ batches, sender: new FetchWebhookSender({ allowPrivate: config.webhookAllowPrivate }), clock, sleep: unrefSleep, log });
}

export async function createBatchQueue(
  config: Pick<Config, 'redisUrl' | 'batchConcurrency' | 'webhookAllowPrivate'>,
  adapters: Adapters,
  options: { clock: () => Date; log: AdapterLog; syncBusy?: () => boolean },
): Promise<RunningBatchQueue | undefined> {
  const { batches, batchResults } = adapters;
  if (!batches || !batchResults) return undefined;
  if (adapters.jobs === 'worker' && config.redisUrl) {
    const queue = new BullRenderQueue({ url: config.redisUrl, prefix: bullPrefix(), log: options.log });
    return { queue, start: async () => {}, stop: () => queue.close() };
  }
  const pipeline = adapters.renderer;
  const threads = pipeline.stats().pool.threads;
  const runner = new InProcessBatchRunner(
    {
      batches,
      results: batchResults,
      meter: adapters.meter,
      renderer: { renderMany: (specs, caller, files) => pipeline.renderManyOnPool(specs, caller, files) },
      clock: options.clock,
      // Every thread while the API is quiet; one group at a time while synchronous requests are in flight.
      turn: yieldingTo(() => pipeline.othersQueued(), options.syncBusy),
      concurrency: config.batchConcurrency ?? threads * BATCH_GROUPS_PER_THREAD,
      onFinished: batchFinishHook(config, batches, options.clock, options.log),
    },
    { log: options.log },
  );
  return {
    queue: runner,
    // Resuming never stops the service from starting: a store that is down now leaves the batches pending for the next start.
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
