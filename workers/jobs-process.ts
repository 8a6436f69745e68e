// The jobs process's composition root: its stores and the BullMQ runner of the background jobs, built from config.
import type { AdapterLog } from '../src/adapters/adapter-log.js';
import type { Probes } from '../src/adapters/contract.js';
import { startQueueWorker } from '../src/adapters/queue/job-queue.bullmq.js';
import { BullRenderQueue, bullPrefix } from '../src/adapters/queue/render-queue.bullmq.js';
import { createWebhookSender } from '../src/composition/webhook-sender.js';
import type { Config, RedisTarget } from '../src/config.js';
import { bindJobs, type RunnableJob } from '../src/services/background-jobs.js';
import { LastUsedBuffer } from '../src/services/last-used-buffer.js';
import { scanWebhookDispatcher } from '../src/composition/scan-webhooks.js';
import { createDomainProbe, createTxtLookup } from '../src/composition/domain-probe.js';
import { createStores } from '../src/composition/stores.js';
import { loadPlanCatalogue } from '../src/plans-file.js';

export interface JobsProcess {
  jobs: RunnableJob[];
  /** False once the runner has stopped taking jobs. */
  isRunning(): boolean;
  probes: Probes;
  /** Finishes the running job, then closes the queue and the stores. */
  close(): Promise<void>;
}

export async function createJobsProcess(
  config: Config & { redis: RedisTarget },
  log: AdapterLog,
): Promise<JobsProcess> {
  // The plans file first: a mistake in it stops the process before anything opens.
  const plans = loadPlanCatalogue(config.plansFile);
  const stores = await createStores(config, { log });
  // The render queue the batch-requeue job adds to; it connects on its first batch only.
  const batchQueue = stores.batches
    ? new BullRenderQueue({ redis: config.redis, prefix: bullPrefix(), log })
    : undefined;
  const webhookSender = createWebhookSender(config);
  const jobs = bindJobs({
    ...stores,
    plans,
    lastUsed: stores.lastUsed ?? new LastUsedBuffer(),
    clock: () => new Date(),
    batchRetentionMs: config.batchRetentionMs,
    batchQueue,
    webhookSender,
    scanWebhookDispatcher: scanWebhookDispatcher(stores, webhookSender, () => new Date(), log),
    domainProbe: createDomainProbe(config),
    domainDns: createTxtLookup(config),
    log,
  });
  const runner = await startQueueWorker({ redis: config.redis, jobs, log, lockMs: config.jobLockMs });
  return {
    jobs,
    isRunning: () => runner.worker.isRunning(),
    probes: stores.probes,
    async close() {
      await runner.close();
      await batchQueue?.close();
      await stores.close();
    },
  };
}
