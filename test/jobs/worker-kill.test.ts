// The worker process SIGKILLed in the middle of a usage rollup: after a restart the stalled job runs again and its
// effect lands exactly once.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreAdapters } from '../../src/adapters/contract.js';
import { createQueue } from '../../src/adapters/queue/job-queue.bullmq.js';
import { createStores } from '../../src/composition/stores.js';
import { periodOf } from '../../src/domain/period.js';
import { createLocalAccount } from '../../src/services/accounts.js';
import { qrFingerprint } from '../../src/services/render-spec.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';

const HOLD_ROLLUP = pathToFileURL(fileURLToPath(new URL('../fixtures/hold-rollup.ts', import.meta.url))).href;

let redis: RedisServer;
let dataDir: string;
let stores: StoreAdapters;
let queue: Queue;
interface WorkerProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** Resolves once the worker logged that it started; rejects if it exits first. */
  started: Promise<unknown>;
  output(): string;
}
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
  dataDir = await mkdtemp(join(tmpdir(), 'qrm-worker-kill-'));
  // The same Redis keys and SQLite file as the worker process (default prefixes): usage in, ledger out.
  stores = await createStores({ dataDir, redis: { url: redis.url }, mongodbUrl: undefined });
  queue = createQueue({ redis: redis.url });
}, 30_000);

afterAll(async () => {
  for (const worker of workers) worker.child.kill('SIGKILL');
  await Promise.all(workers.map((w) => w.exited));
  await queue?.close();
  await stores?.close();
  await redis?.destroy();
  await rm(dataDir, { recursive: true, force: true });
});

function startWorker(env: Record<string, string>, preload?: string): WorkerProcess {
  const args = ['--import', 'tsx', ...(preload ? ['--import', preload] : []), 'workers/jobs.ts'];
  const child = spawn(process.execPath, args, {
    // A one-second job lock: a job orphaned by a killed worker is taken over within seconds, not the default minute.
    env: { ...process.env, LOG_LEVEL: 'info', REDIS_URL: redis.url, QR_DATA_DIR: dataDir, JOB_LOCK_MS: '1000', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started = waitFor(
    'the worker to start',
    () =>
      output.includes('worker started') || (child.exitCode !== null ? Promise.reject(new Error(output)) : undefined),
    {
      timeoutMs: 20_000,
      intervalMs: 50,
    },
  );
  const worker: WorkerProcess = { child, exited, started, output: () => output };
  workers.push(worker);
  return worker;
}

describe('the worker process killed mid-job', () => {
  it(
    'runs the orphaned rollup again after a restart, completes it once, and the ledger holds every count exactly ' +
      'once',
    async () => {
      // Six accounts with usage in Redis (1 to 6 requests, at most 2 codes each), none rolled up yet.
      const deps = { ...stores, keyPepper: undefined, clock: () => new Date() };
      const period = periodOf(new Date());
      const expected = new Map<string, { requests: number; qrs: number }>();
      for (let n = 1; n <= 6; n++) {
        const account = await createLocalAccount(deps, `worker-kill-${n}-${Date.now()}@example.com`, 'pro');
        for (let i = 0; i < n; i++) {
          const payload = `code ${i % 2}`;
          const qr = { fingerprint: qrFingerprint('text', payload), type: 'text' as const, payload };
          expect(
            (
              await stores.meter.reserve({
                accountId: account.id,
                period,
                qr,
                limits: { requests: 100, qrs: 100 },
                at: new Date(),
              })
            ).ok,
          ).toBe(true);
        }
        expected.set(account.id, { requests: n, qrs: Math.min(n, 2) });
      }

      // First worker: writes two of the six snapshots, then hangs inside the job until killed.
      const first = startWorker({ QRM_TEST_HOLD_ROLLUP_AFTER: '2' }, HOLD_ROLLUP);
      await first.started;
      await queue.add('usage-rollup', {});
      await waitFor('the rollup to be held mid-job', () => first.output().includes('test-hook: rollup held'), {
        timeoutMs: 10_000,
        intervalMs: 50,
      });
      const [held] = await queue.getActive();
      expect(held).toBeDefined();
      first.child.kill('SIGKILL');
      await first.exited;
      expect(await held!.getState()).toBe('active'); // orphaned: its lock lives on until it expires

      // Restarted: the stalled-job check hands the orphan to the new worker, which completes it.
      const second = startWorker({});
      await second.started;
      await waitFor(
        'the orphaned job to complete',
        async () => (await queue.getJob(held!.id!))?.finishedOn !== undefined,
        {
          timeoutMs: 15_000,
          intervalMs: 100,
        },
      );
      const done = (await queue.getJob(held!.id!))!;
      expect(await done.getState()).toBe('completed');
      expect(done.returnvalue).toMatchObject({ drained: true });
      const completions = second
        .output()
        .split('\n')
        .filter((line) => line.includes('background job done') && line.includes(`"id":"${held!.id}"`));
      expect(completions).toHaveLength(1);

      // Its effect landed once: each account's usage exactly as counted, and nothing left for another run.
      for (const [accountId, usage] of expected)
        expect(await stores.usageLedger!.usage(accountId, period)).toEqual(usage);
      expect(await stores.usageCounters!.changed(period, 100)).toEqual([]);

      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    },
    60_000,
  );
});
