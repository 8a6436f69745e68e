// The background jobs on BullMQ: schedulers upserted once with stable ids and UTC crons, processors run, bad data fails
// for good.
import { randomUUID } from 'node:crypto';
import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQueueWorker, type QueueWorker } from '../../src/adapters/queue/job-queue.bullmq.js';
import type { StoreAdapters } from '../../src/adapters/contract.js';
import { createStores } from '../../src/composition/stores.js';
import { periodOf } from '../../src/domain/period.js';
import { createLocalAccount } from '../../src/services/accounts.js';
import { issueKey, listKeys } from '../../src/services/api-keys.js';
import { BACKGROUND_JOBS, bindJobs } from '../../src/services/background-jobs.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';

let redis: RedisServer;
let stores: StoreAdapters;
let runner: QueueWorker;
const bullPrefix = `t-${randomUUID()}:bull`;

beforeAll(async () => {
  redis = await startRedisServer();
  stores = await createStores(
    { dataDir: ':memory:', redis: { url: redis.url }, mongodbUrl: undefined },
    { redisKeyPrefix: `t-${randomUUID()}:` },
  );
  const jobs = bindJobs({ ...stores, lastUsed: stores.lastUsed!, clock: () => new Date() });
  runner = await startQueueWorker({ redis: redis.url, prefix: bullPrefix, jobs });
}, 60_000);

afterAll(async () => {
  await runner?.close();
  await stores?.close();
  await redis?.destroy();
});

/** Waits for the job to complete or fail, and returns it as stored then. */
async function finished(job: Job): Promise<Job> {
  await waitFor(`job ${job.name} to finish`, async () => ['completed', 'failed'].includes(await job.getState()), {
    timeoutMs: 10_000,
    intervalMs: 50,
  });
  return (await runner.queue.getJob(job.id!))!;
}

describe('BullMQ background jobs', () => {
  it('upserts one scheduler per job with a stable id and a UTC cron, however often it starts', async () => {
    const second = await startQueueWorker({
      redis: redis.url,
      prefix: bullPrefix,
      jobs: bindJobs({ ...stores, lastUsed: stores.lastUsed!, clock: () => new Date() }),
    });
    await second.close();
    const schedulers = await runner.queue.getJobSchedulers();
    expect(
      schedulers.map((s) => ({ id: s.key, pattern: s.pattern, tz: s.tz })).sort((a, b) => a.id.localeCompare(b.id)),
    ).toEqual(
      BACKGROUND_JOBS.map((j) => ({ id: j.name, pattern: j.pattern, tz: 'UTC' })).sort((a, b) =>
        a.id.localeCompare(b.id),
      ),
    );
  });

  it('runs the rollup and the last-used flush, moving Redis state into the store', async () => {
    const deps = { ...stores, keyPepper: undefined, clock: () => new Date() };
    const account = await createLocalAccount(deps, `jobs-${randomUUID()}@example.com`, 'free');
    const issued = await issueKey(deps, account.id);
    const period = periodOf(new Date());
    await stores.meter.reserve({
      accountId: account.id,
      period,
      qr: { fingerprint: 'fp', type: 'text', payload: 'p' },
      limits: { requests: 5, qrs: 5 },
      at: new Date(),
    });
    stores.lastUsed!.record(issued.key.id, new Date(1_700_000_000_000));

    const rollup = await finished(await runner.queue.add('usage-rollup', {}));
    expect(rollup.returnvalue).toMatchObject({ drained: true });
    expect(await stores.usageLedger!.usage(account.id, period)).toEqual({ requests: 1, qrs: 1 });

    await finished(await runner.queue.add('last-used-flush', {}));
    expect((await listKeys(stores, account.id))[0]!.lastUsedAt).toEqual(new Date(1_700_000_000_000));
  });

  it('fails a job with bad data or an unknown name at once, without retries', async () => {
    const bad = await finished(await runner.queue.add('usage-rollup', { period: 'whenever' }, { attempts: 5 }));
    expect(await bad.getState()).toBe('failed');
    expect(bad.attemptsMade).toBe(1);
    expect(bad.failedReason).toMatch(/carries data/);
    const unknown = await finished(await runner.queue.add('drop-tables', {}, { attempts: 5 }));
    expect(await unknown.getState()).toBe('failed');
    expect(unknown.attemptsMade).toBe(1);
    expect(unknown.failedReason).toMatch(/unknown job/);
  });
});
