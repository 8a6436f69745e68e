// Redis mode: an API that stored a batch and died before queuing its chunks leaves it queued with no jobs; the
// batch-requeue job queues it again.
// And the queue tells which batches a render process is drawing now (what a retried cancel waits for).
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BullRenderQueue,
  RENDER_QUEUE_NAME,
  bullPrefix,
  startRenderWorker,
} from '../../src/adapters/queue/render-queue.bullmq.js';
import { BACKGROUND_JOBS } from '../../src/services/background-jobs.js';
import { STALLED_QUEUED_MS } from '../../src/services/batches/requeue-batches.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { batchCaller, expectRowsReadByAll, urlItems } from '../helpers/batches.js';
import { killChild, spawnRenderProcess } from '../helpers/processes.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';

let redis: RedisServer;
let dataDir: string;
let t: TestApp;
let render: ChildProcess | undefined;

beforeAll(async () => {
  redis = await startRedisServer();
  dataDir = await mkdtemp(join(tmpdir(), 'qrm-requeue-'));
  t = await createTestApp({ dataDir, redis: { url: redis.url, keyPrefix: 'qrm:' } });
}, 30_000);

afterAll(async () => {
  if (render) await killChild(render, 'SIGKILL');
  await t?.close();
  await redis?.destroy();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the batch-requeue job', () => {
  it(
    'queues again a batch stored but never queued, once it is old enough, and the render process then renders ' +
      'every item',
    async () => {
      const { key } = await t.newCaller('pro');
      const batches = batchCaller(t.app, key);
      const id = await batches.start({ items: urlItems(40, 'requeue') });

      // No render process yet: the chunks wait in the queue. Removing them leaves what a crash between store and queue
      // leaves.
      const bull = new Queue(RENDER_QUEUE_NAME, { connection: { url: redis.url }, prefix: bullPrefix() });
      const renderQueue = new BullRenderQueue({ redis: redis.url, prefix: bullPrefix() });
      try {
        await bull.drain();
        expect(await bull.getJobCounts('waiting', 'active', 'delayed')).toMatchObject({
          waiting: 0,
          active: 0,
          delayed: 0,
        });

        const job = BACKGROUND_JOBS.find((j) => j.name === 'batch-requeue')!;
        const deps = (offsetMs: number) => ({
          ...t.stores,
          lastUsed: t.stores.lastUsed!,
          batchQueue: renderQueue,
          clock: () => new Date(t.clock.now.getTime() + offsetMs),
        });
        // Young: it may still be on its way to the queue.
        expect(await job.run(deps(0))).toBe(0);
        expect(await bull.getJobCounts('waiting')).toMatchObject({ waiting: 0 });
        expect(await job.run(deps(STALLED_QUEUED_MS + 1_000))).toBe(1);
        expect((await bull.getJobCounts('waiting')).waiting).toBeGreaterThan(0);
      } finally {
        await bull.close();
        await renderQueue.close();
      }

      render = spawnRenderProcess(redis.url, dataDir);
      const done = await batches.finished(id, 90_000);
      expect(done).toMatchObject({ status: 'completed', total: 40, succeeded: 40, failed: 0 });

      await batches.withArchive(id, async ({ dir, rows }) => {
        expect(rows).toHaveLength(40);
        await expectRowsReadByAll(dir, rows, (index) => `https://example.com/requeue/${index}`);
      });
    },
    180_000,
  );

  it(
    'says a batch is rendering while a render process ' +
      'holds one of its chunks, and not once the chunk is ' +
      'done',
    async () => {
      const prefix = `${bullPrefix()}-rendering`;
      const queue = new BullRenderQueue({ redis: redis.url, prefix });
      let entered!: () => void;
      const chunkTaken = new Promise<void>((resolve) => (entered = resolve));
      let release!: () => void;
      const chunkMayFinish = new Promise<void>((resolve) => (release = resolve));
      const worker = await startRenderWorker({
        redis: redis.url,
        prefix,
        render: async () => {
          entered();
          await chunkMayFinish;
          return 0;
        },
      });
      try {
        await queue.enqueue({ id: 'bat_held', total: 10 });
        await chunkTaken;
        expect(await queue.rendering('bat_held')).toBe(true);
        expect(await queue.rendering('bat_other')).toBe(false);
        release();
        await waitFor('the chunk to complete', async () => !(await queue.rendering('bat_held')));
      } finally {
        await worker.close();
        await queue.close();
      }
    },
  );
});
