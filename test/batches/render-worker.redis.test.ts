// Redis mode: batches render in a separate `render` process; SIGKILLed mid-batch and restarted, it still yields every
// item exactly once; dynamic items too.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodOf } from '../../src/domain/period.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { BATCHES_URL, batchCaller, expectRowsReadByAll, urlItems, type BatchJson } from '../helpers/batches.js';
import { decodePngFiles, readByAll } from '../helpers/decode.js';
import { killChild, spawnRenderProcess } from '../helpers/processes.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';

let redis: RedisServer;
let dataDir: string;
let t: TestApp;
const workers: ChildProcess[] = [];

function startRenderProcess(): ChildProcess {
  const child = spawnRenderProcess(redis.url, dataDir);
  workers.push(child);
  return child;
}

beforeAll(async () => {
  redis = await startRedisServer();
  dataDir = await mkdtemp(join(tmpdir(), 'qrm-render-'));
  // The API in Redis mode with the default key prefix, as the render process uses; batches go to the BullMQ render
  // queue.
  t = await createTestApp({ dataDir, redis: { url: redis.url, keyPrefix: 'qrm:' } });
}, 30_000);

afterAll(async () => {
  for (const child of workers) await killChild(child, 'SIGKILL');
  await t?.close();
  await redis?.destroy();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the render process', () => {
  it(
    'SIGKILLed mid-batch then restarted, still yields every item exactly once, and the quota moved by exactly ' +
      'the items',
    async () => {
      const { key, accountId } = await t.newCaller('pro');
      const batches = batchCaller(t.app, key);
      const id = await batches.start({ items: urlItems(600, 'kill') });
      const view = async () => JSON.parse((await batches.get(`${BATCHES_URL}/${id}`)).body) as BatchJson;

      const first = startRenderProcess();
      // Once some chunks are done and more are left, the process is frozen (SIGSTOP) where it stands, then killed:
      // mid-batch, and most likely mid-chunk. Rendering 450 items between a poll and the freeze is beyond any machine;
      // were one to, the check after fails.
      await waitFor('the render process to draw 150 items', async () => (await view()).succeeded >= 150, {
        timeoutMs: 60_000,
        intervalMs: 20,
      });
      first.kill('SIGSTOP');
      const atKill = await view();
      await killChild(first, 'SIGKILL');
      expect(atKill.status).toBe('running');
      expect(atKill.succeeded).toBeLessThan(600);

      startRenderProcess();
      const done = await batches.finished(id, 90_000);
      expect(done).toMatchObject({ status: 'completed', total: 600, succeeded: 600, failed: 0 });
      expect(await t.stores.meter.usage(accountId, periodOf(t.clock.now))).toEqual({ requests: 600, qrs: 600 });

      await batches.withArchive(id, async ({ dir, files, rows }) => {
        expect(rows.map((row) => [row[0], row[3]])).toEqual(
          Array.from({ length: 600 }, (_, i) => [String(i), 'succeeded']),
        );
        expect(files).toHaveLength(601);
        // The items around the kill are the ones at risk: decode every tenth file, all of them near the kill point.
        const sample = rows.filter(
          (row) => Number(row[0]) % 10 === 0 || Math.abs(Number(row[0]) - atKill.succeeded) < 60,
        );
        await expectRowsReadByAll(dir, sample, (index) => `https://example.com/kill/${index}`);
      });
    },
    180_000,
  );

  it(
    'dynamic items: the API makes the codes at acceptance, the render process draws their short URLs, every ' +
      'reader reads them, a scan redirects',
    async () => {
      const { key } = await t.newCaller('pro');
      const batches = batchCaller(t.app, key);
      const items = Array.from({ length: 20 }, (_, i) => ({
        outputFormat: 'png',
        dynamic: { target: `https://example.com/redis/${i}`, name: `redis ${i}` },
      }));
      const id = await batches.start({ items });
      if (!workers.some((child) => child.exitCode === null && child.signalCode === null)) startRenderProcess();
      expect(await batches.finished(id, 90_000)).toMatchObject({ status: 'completed', succeeded: 20 });

      const codes = (
        JSON.parse((await batches.get('/api/v1/QRManager/codes?limit=100')).body) as {
          items: Array<{ id: string; shortUrl: string; target: string }>;
        }
      ).items;
      expect(codes).toHaveLength(20);
      const byId = new Map(codes.map((code) => [code.id, code]));
      await batches.withArchive(id, async ({ dir, rows }) => {
        expect(rows.map((row) => [row[6], byId.get(row[5]!)?.target])).toEqual(
          rows.map((row, i) => [byId.get(row[5]!)?.shortUrl, `https://example.com/redis/${i}`]),
        );
        const decoded = await decodePngFiles(rows.map((row) => join(dir, row[2]!)));
        expect(decoded).toEqual(rows.map((row) => readByAll(row[6]!)));
      });
      const scan = await t.app.inject({ method: 'GET', url: new URL(codes[0]!.shortUrl).pathname });
      expect([scan.statusCode, scan.headers.location]).toEqual([302, codes[0]!.target]);
    },
    120_000,
  );
});
