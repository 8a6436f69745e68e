// One-off measured run (not in npm test): a 5,000-item batch of dynamic codes yields 5,000 codes whose images all read
// as their short URLs.
// Run: MEASURE_DYNAMIC_BATCH=5000 npx vitest run test/measure/dynamic-batch-5000.test.ts (the count is the variable's
// value; a sample of 500 is read by every reader).
// MEASURE_DYNAMIC_BATCH_REDIS=1 as well: Redis mode, the images drawn by a `render` process (workers/render.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { mkdtemp, rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.js';
import { BATCHES_URL, postBatch, unpackArchive, waitForBatch } from '../helpers/batches.js';
import { decodePngFiles, readByAll, zxingReadFiles } from '../helpers/decode.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';

const COUNT = Number(process.env.MEASURE_DYNAMIC_BATCH ?? 0);
const SAMPLE = 500;
const REDIS = process.env.MEASURE_DYNAMIC_BATCH_REDIS === '1';

/** Redis mode: a redis-server, the API on it, and one render process; embedded: the API alone. */
async function startService() {
  if (!REDIS) return { t: await createTestApp(), stop: async () => {} };
  const redis: RedisServer = await startRedisServer();
  const dataDir = await mkdtemp(join(tmpdir(), 'qrm-measure-'));
  const t = await createTestApp({ dataDir, redis: { url: redis.url, keyPrefix: 'qrm:' } });
  const render: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'workers/render.ts'], {
    env: { ...process.env, REDIS_URL: redis.url, QR_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return {
    t,
    stop: async () => {
      const exited = new Promise((resolve) => render.once('exit', resolve));
      render.kill('SIGTERM');
      await exited;
      await redis.destroy();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

describe.runIf(COUNT > 0)(`a batch of ${COUNT} dynamic items (measured, ${REDIS ? 'Redis mode' : 'embedded'})`, () => {
  it(
    'makes one code per item, every image reads as its code’s short URL (all with ZXing, a sample with ZXing, ' +
      'zbar and jsQR)',
    async () => {
      const { t, stop } = await startService();
      try {
        const { key } = await t.newCaller('business');
        const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
        const items = Array.from({ length: COUNT }, (_, i) => ({
          outputFormat: 'png',
          dynamic: { target: `https://example.com/print-run/${i}`, name: `print run ${i}` },
        }));
        const figures: Record<string, string> = {};
        const time = async <T>(label: string, work: () => Promise<T>): Promise<T> => {
          const started = performance.now();
          const result = await work();
          figures[label] = `${((performance.now() - started) / 1000).toFixed(1)} s`;
          return result;
        };

        const res = await time('accept (POST, codes made)', () => postBatch(t.app, key, { items }));
        expect(res.statusCode, res.body).toBe(202);
        const { id } = JSON.parse(res.body) as { id: string };
        expect(await time('render', () => waitForBatch(get, id, 30 * 60_000))).toMatchObject({
          status: 'completed',
          succeeded: COUNT,
          failed: 0,
        });

        const codes = await time('list codes (GET /codes, pages of 100)', async () => {
          const all: Array<{ id: string; shortUrl: string; target: string; name: string }> = [];
          let cursor: string | null = null;
          do {
            const page = JSON.parse(
              (await get(`/api/v1/QRManager/codes?limit=100${cursor ? `&cursor=${cursor}` : ''}`)).body,
            ) as {
              items: typeof all;
              nextCursor: string | null;
            };
            all.push(...page.items);
            cursor = page.nextCursor;
          } while (cursor);
          return all;
        });
        expect(codes).toHaveLength(COUNT);
        const byId = new Map(codes.map((code) => [code.id, code]));

        const archive = await time('archive (download, unzip)', async () =>
          unpackArchive((await get(`${BATCHES_URL}/${id}/archive`)).rawPayload),
        );
        try {
          const rows = archive.manifest.slice(1);
          expect(rows).toHaveLength(COUNT);
          // Every row: a distinct code of the account, whose shortUrl the row gives and whose target is the item's.
          expect(new Set(rows.map((row) => row[5])).size).toBe(COUNT);
          const mismatched = rows.filter(
            (row, i) =>
              byId.get(row[5]!)?.shortUrl !== row[6] ||
              byId.get(row[5]!)?.target !== `https://example.com/print-run/${i}`,
          );
          expect(mismatched).toEqual([]);

          const paths = rows.map((row) => join(archive.dir, row[2]!));
          const zxing = await time(`ZXing on all ${COUNT}`, () => zxingReadFiles(paths));
          const unread = rows.filter((row, i) => zxing[i] !== row[6]);
          expect(unread).toEqual([]);
          const step = Math.max(1, Math.floor(COUNT / SAMPLE));
          const sample = rows.filter((_, i) => i % step === 0).slice(0, SAMPLE);
          const all = await time(`ZXing, zbar and jsQR on ${sample.length}`, () =>
            decodePngFiles(sample.map((row) => join(archive.dir, row[2]!))),
          );
          expect(all).toEqual(sample.map((row) => readByAll(row[6]!)));
          figures.codes = String(codes.length);
          figures['read by ZXing'] = String(COUNT - unread.length);
          figures['read by all three (sample)'] = String(all.length);
        } finally {
          await rm(join(archive.dir, '..'), { recursive: true, force: true });
        }
        console.log(`dynamic batch of ${COUNT} (${REDIS ? 'Redis mode' : 'embedded'}):`, figures);
      } finally {
        await t.close();
        await stop();
      }
    },
    60 * 60_000,
  );
});
