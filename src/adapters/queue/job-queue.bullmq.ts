// The background jobs on BullMQ: schedulers upserted from the job table, and the worker that runs their processors.
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { z } from 'zod';
import { SILENT_LOG, type AdapterLog } from '../adapter-log.js';
import { bullConnection, closeRedisClient, isRedisOutage, type RedisTarget } from '../redis/connection.js';
import { ApiError } from '../../domain/errors.js';
import type { RunnableJob } from '../../services/background-jobs.js';

export const QUEUE_NAME = 'background';

export interface BullQueueOptions {
  /** One Redis (its URL) or a cluster. */
  redis: RedisTarget | string;
  /** BullMQ key prefix (default `{qrm:bull}`: one hash tag, as a cluster requires), apart from the metering keys. */
  prefix?: string;
}

/** BullMQ's default prefix here: in braces, so every key of a queue hashes to one cluster slot. */
export const DEFAULT_BULL_PREFIX = '{qrm:bull}';

/** Every job of the table carries no data: anything else was not made by our schedulers. */
const JobData = z.strictObject({});

const TEMPLATE_OPTIONS = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 5_000 },
  removeOnComplete: { count: 100 },
  removeOnFail: { count: 500 },
} as const;

/**
 * Upserts one scheduler per job, with the job name as its stable id and the pattern in UTC: run at
 * every worker start, it converges on the table (a changed pattern replaces the old one).
 */
export async function upsertJobSchedulers(
  queue: Queue,
  jobs: ReadonlyArray<Pick<RunnableJob, 'name' | 'pattern'>>,
): Promise<void> {
  for (const job of jobs) {
    await queue.upsertJobScheduler(
      job.name,
      { pattern: job.pattern, tz: 'UTC' },
      { name: job.name, data: {}, opts: TEMPLATE_OPTIONS },
    );
  }
}

/** A queue of the background jobs; on a cluster it owns its connection and closes it with itself. */
export function createQueue(options: BullQueueOptions): Queue {
  const connection = bullConnection(options.redis, 'producer');
  const queue = new Queue(QUEUE_NAME, { connection, prefix: options.prefix ?? DEFAULT_BULL_PREFIX });
  const close = queue.close.bind(queue);
  queue.close = async () => {
    await close();
    await closeRedisClient(connection);
  };
  return queue;
}

/** The processor BullMQ calls: unknown jobs and bad data fail for good, an outage is retried with backoff. */
export function jobProcessor(
  jobs: readonly RunnableJob[],
  log: AdapterLog = SILENT_LOG,
): (job: Job) => Promise<unknown> {
  const byName = new Map(jobs.map((job) => [job.name as string, job]));
  return async (job) => {
    const runnable = byName.get(job.name);
    if (!runnable) throw new UnrecoverableError(`unknown job ${JSON.stringify(job.name)}`);
    if (!JobData.safeParse(job.data).success)
      throw new UnrecoverableError(`job ${job.name} carries data it does not take`);
    const started = Date.now();
    try {
      const result = await runnable.run();
      log.info({ job: job.name, id: job.id, durationMs: Date.now() - started, result }, 'background job done');
      return result;
    } catch (error) {
      const outage = isRedisOutage(error) || (error instanceof ApiError && error.code === 'unavailable');
      log.warn(
        { err: error, job: job.name, id: job.id, attempt: job.attemptsMade + 1, outage },
        'background job failed; BullMQ retries it',
      );
      throw error;
    }
  };
}

export interface QueueWorker {
  worker: Worker;
  queue: Queue;
  /** Stops taking jobs, waits for the one running, closes both connections. */
  close(): Promise<void>;
}

export interface QueueWorkerOptions extends BullQueueOptions {
  jobs: readonly RunnableJob[];
  log?: AdapterLog;
  concurrency?: number;
  /**
   * Lock on a running job and the stalled-check interval (default 30 s): a job whose worker died runs again within
   * about twice this.
   */
  lockMs?: number;
}

/** Upserts the schedulers, then starts a worker on their queue. */
export async function startQueueWorker(options: QueueWorkerOptions): Promise<QueueWorker> {
  const prefix = options.prefix ?? DEFAULT_BULL_PREFIX;
  const queue = createQueue({ redis: options.redis, prefix });
  await upsertJobSchedulers(queue, options.jobs);
  const log = options.log ?? SILENT_LOG;
  // Workers block on Redis: their connection must retry forever (maxRetriesPerRequest: null), unlike the API's.
  const connection = bullConnection(options.redis, 'worker');
  const worker = new Worker(QUEUE_NAME, jobProcessor(options.jobs, log), {
    connection,
    prefix,
    concurrency: options.concurrency ?? 1,
    // A worker that dies mid-job stops renewing its lock: after lockDuration the job is stalled, and the next stalled
    // check runs it again.
    lockDuration: options.lockMs ?? 30_000,
    stalledInterval: options.lockMs ?? 30_000,
  });
  worker.on('error', (err) => log.warn({ err }, 'background worker connection error'));
  await worker.waitUntilReady();
  return {
    worker,
    queue,
    async close() {
      await worker.close();
      await queue.close();
      await closeRedisClient(connection);
    },
  };
}
