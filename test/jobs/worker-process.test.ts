// The worker process as ops run it: starts on REDIS_URL, refuses to start without it, and closes gracefully on SIGTERM.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';

let redis: RedisServer;
let dataDir: string;

beforeAll(async () => {
  redis = await startRedisServer();
  dataDir = await mkdtemp(join(tmpdir(), 'qrm-worker-'));
});
afterAll(async () => {
  await redis?.destroy();
  await rm(dataDir, { recursive: true, force: true });
});

function startWorker(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'workers/jobs.ts'], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const killTimer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  void exited.then(() => clearTimeout(killTimer));
  return { child, exited, output: () => output };
}

describe('the worker process', () => {
  it('starts its jobs on Redis and exits 0 on SIGTERM once the running job is done', async () => {
    const worker = startWorker({ REDIS_URL: redis.url, QR_DATA_DIR: dataDir });
    await waitFor(
      'the worker to start',
      () =>
        worker.output().includes('worker started') ||
        (worker.child.exitCode !== null ? Promise.reject(new Error(worker.output())) : undefined),
      {
        timeoutMs: 20_000,
        intervalMs: 100,
      },
    );
    expect(worker.output()).toContain('usage-rollup (* * * * * UTC)');
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(worker.output()).toContain('worker shutdown complete');
  }, 40_000);

  it('refuses to start without REDIS_URL, naming the variable', async () => {
    const worker = startWorker({ QR_DATA_DIR: dataDir, REDIS_URL: '' });
    expect(await worker.exited).toBe(1);
    expect(worker.output()).toContain('REDIS_URL');
  }, 40_000);
});
