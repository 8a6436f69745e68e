// Redis mode: an API that stored a batch and died before queuing its chunks leaves it queued with no jobs; the
// batch-requeue job queues it again.
// And the queue tells which batches a render process is drawing now (what a retried cancel waits for).
import { spawn, type ChildProcess } from 'node:child_process';
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
import {
  BATCHES_URL,
  decodeManifestRows,
  postBatch,
  unpackArchive,
  urlItems,
  waitForBatch,
  type BatchJson,
} from '../helpers/batches.js';
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
  if (render && render.exitCode === null && render.signalCode === null) {
    const exited = new Promise((resolve) => render!.once('exit', resolve));
    render.kill('SIGKILL');
    await exited;
  }
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
      const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
      const res = await postBatch(t.app, key, { items: urlItems(40, 'requeue') });
      expect(res.statusCode, res.body).toBe(202);
      const { id } = JSON.parse(res.body) as { id: string };

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

      render = spawn(process.execPath, ['--import', 'tsx', 'workers/render.ts'], {
        env: {
          ...process.env,
          REDIS_URL: redis.url,
          QR_DATA_DIR: dataDir,
          RENDER_THREADS: '1',
          JOB_LOCK_MS: '1000',
          LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      const done: BatchJson = await waitForBatch(get, id, 90_000);
      expect(done).toMatchObject({ status: 'completed', total: 40, succeeded: 40, failed: 0 });

      const unpacked = await unpackArchive((await get(`${BATCHES_URL}/${id}/archive`)).rawPayload);
      try {
        const { zbar, zxing, jsqr, expected } = await decodeManifestRows(
          unpacked.dir,
          unpacked.manifest.slice(1),
          (index) => `https://example.com/requeue/${index}`,
        );
        expect(expected).toHaveLength(40);
        expect(zbar).toEqual(expected);
        expect(zxing).toEqual(expected);
        expect(jsqr).toEqual(expected);
      } finally {
        await rm(join(unpacked.dir, '..'), { recursive: true, force: true });
      }
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
