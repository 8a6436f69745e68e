// The render process's composition root: its stores, its own render pool and the BullMQ worker of the render queue,
// built from config.
import type { AdapterLog } from '../src/adapters/adapter-log.js';
import { bullPrefix, startRenderWorker } from '../src/adapters/queue/render-queue.bullmq.js';
import { createWebhookSender } from '../src/composition/webhook-sender.js';
import { createRenderPipeline } from '../src/adapters/render/render-pipeline.js';
import { ConfigError, type Config, type RedisTarget } from '../src/config.js';
import { BATCH_GROUPS_PER_THREAD } from '../src/domain/batches/batch.js';
import { loadPlanCatalogue } from '../src/plans-file.js';
import { renderChunk, type RenderChunkDeps } from '../src/services/batches/render-chunk.js';
import { batchFinishHook } from '../src/composition/batch-queue.js';
import { createStores } from '../src/composition/stores.js';

export interface RenderProcess {
  threads: number;
  /** Finishes the running chunk, then closes the queue, the pool and the stores. */
  close(): Promise<void>;
}

export async function createRenderProcess(
  config: Config & { redis: RedisTarget },
  log: AdapterLog,
): Promise<RenderProcess> {
  // The plans file first, as in the API: the render share of each account follows the operator's plans.
  const plans = loadPlanCatalogue(config.plansFile);
  const stores = await createStores(config, { log });
  const { batches, batchResults } = stores;
  if (!batches || !batchResults) {
    await stores.close();
    throw new ConfigError('this configuration has no batch store');
  }
  // The same render factory as the API; here nothing else renders, so every thread takes batch items.
  const pipeline = createRenderPipeline(config, { log, plans });
  const threads = pipeline.stats().pool.threads;
  const clock = () => new Date();
  const deps: RenderChunkDeps = {
    batches,
    results: batchResults,
    meter: stores.meter,
    logos: stores.logos,
    renderer: { renderMany: (specs, caller, files) => pipeline.renderManyOnPool(specs, caller, files) },
    clock,
    concurrency: config.batchConcurrency ?? threads * BATCH_GROUPS_PER_THREAD,
    onFinished: batchFinishHook(batches, createWebhookSender(config), clock, log),
  };
  const worker = await startRenderWorker({
    redis: config.redis,
    prefix: bullPrefix(),
    lockMs: config.jobLockMs,
    log,
    render: (chunk) => renderChunk(deps, chunk),
  });
  return {
    threads,
    async close() {
      await worker.close();
      await pipeline.close();
      await stores.close();
    },
  };
}
