// The worker process as ops run it: starts on REDIS_URL, refuses to start without it, and closes gracefully on SIGTERM.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { spawnEntry, startEntry } from '../helpers/processes.js';

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

describe('the worker process', () => {
  it('starts its jobs on Redis and exits 0 on SIGTERM once the running job is done', async () => {
    const worker = await startEntry(
      'jobs.ts',
      { REDIS_URL: redis.url, QR_DATA_DIR: dataDir },
      'worker started',
      20_000,
    );
    try {
      expect(worker.output()).toContain('usage-rollup (* * * * * UTC)');
    } finally {
      expect(await worker.stop()).toBe(0);
    }
    expect(worker.output()).toContain('worker shutdown complete');
  }, 40_000);

  it('refuses to start without REDIS_URL, naming the variable', async () => {
    const worker = spawnEntry('jobs.ts', { QR_DATA_DIR: dataDir, REDIS_URL: '' });
    try {
      expect(await worker.exited).toBe(1);
      expect(worker.output()).toContain('REDIS_URL');
    } finally {
      await worker.stop();
    }
  }, 40_000);
});
