// Redis + MongoDB mode: a batch renders in a separate render process sharing no disk with the API; its record lives in
// MongoDB, its files in GridFS.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireBatches } from '../../src/services/batches/cancel-batch.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { BATCHES_URL, postBatch, unpackArchive, urlItems, waitForBatch } from '../helpers/batches.js';
import { decodePngFiles } from '../helpers/decode.js';
import { dropDatabase, mongoTargetLabel, startMongoTarget, type MongoTarget } from '../helpers/mongo-standin.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';

const ITEMS = 24;
let redis: RedisServer;
let mongo: MongoTarget;
let mongoUrl: string;
const dbName = `qrm_gridfs_${process.pid}_${Date.now().toString(36)}`;
let dataDir: string;
let renderDir: string;
let t: TestApp;
let renderer: ChildProcess | undefined;

beforeAll(async () => {
  [redis, mongo] = await Promise.all([startRedisServer(), startMongoTarget()]);
  // The render process takes only MONGODB_URL, so the throwaway database is named in the URL itself.
  mongoUrl = mongo.withDatabase(dbName);
  dataDir = await mkdtemp(join(tmpdir(), 'qrm-gridfs-'));
  // The render process has a data directory of its own: everything it shares with the API goes through MongoDB and
  // Redis.
  renderDir = await mkdtemp(join(tmpdir(), 'qrm-gridfs-render-'));
  t = await createTestApp({ dataDir, redis: { url: redis.url, keyPrefix: 'qrm:' }, env: { MONGODB_URL: mongoUrl } });
  renderer = spawn(process.execPath, ['--import', 'tsx', 'workers/render.ts'], {
    env: {
      ...process.env,
      REDIS_URL: redis.url,
      MONGODB_URL: mongoUrl,
      QR_DATA_DIR: renderDir,
      RENDER_THREADS: '1',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}, 30_000);

afterAll(async () => {
  if (renderer && renderer.exitCode === null && renderer.signalCode === null) {
    const exited = new Promise((resolve) => renderer!.once('exit', resolve));
    renderer.kill('SIGKILL');
    await exited;
  }
  await t?.close();
  if (mongo) await dropDatabase(mongoUrl, dbName);
  await mongo?.stop();
  await redis?.destroy();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  if (renderDir) await rm(renderDir, { recursive: true, force: true });
});

describe(`batch results in GridFS, against ${mongoTargetLabel()}`, () => {
  it(
    'keeps every rendered item in GridFS (none on local disk), serves them in the archive, and deletes them on ' +
      'expiry',
    async () => {
      const { key } = await t.newCaller('pro');
      const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
      const res = await postBatch(t.app, key, { items: urlItems(ITEMS, 'gridfs') });
      expect(res.statusCode, res.body).toBe(202);
      const { id } = JSON.parse(res.body) as { id: string };
      expect(await waitForBatch(get, id, 90_000)).toMatchObject({
        status: 'completed',
        total: ITEMS,
        succeeded: ITEMS,
        failed: 0,
      });
      expect(existsSync(join(dataDir, 'batches'))).toBe(false);
      expect(await readdir(renderDir)).toEqual([]);

      const archive = await get(`${BATCHES_URL}/${id}/archive`);
      expect(archive.statusCode).toBe(200);
      const unpacked = await unpackArchive(archive.rawPayload);
      try {
        const rows = unpacked.manifest.slice(1);
        expect(rows.map((row) => [row[0], row[3]])).toEqual(
          Array.from({ length: ITEMS }, (_, i) => [String(i), 'succeeded']),
        );
        const decoded = await decodePngFiles(rows.map((row) => join(unpacked.dir, row[2]!)));
        const expected = rows.map((row) => `https://example.com/gridfs/${row[0]}`);
        expect(decoded.map((d) => d.zbar)).toEqual(expected);
        expect(decoded.map((d) => d.zxing)).toEqual(expected);
        expect(decoded.map((d) => d.jsqr)).toEqual(expected);
      } finally {
        await rm(join(unpacked.dir, '..'), { recursive: true, force: true });
      }

      // Retention: the expiry job's service, with a cut-off after the batch finished.
      expect(
        await expireBatches(
          { batches: t.stores.batches!, results: t.stores.batchResults! },
          new Date(Date.now() + 60_000),
        ),
      ).toBeGreaterThanOrEqual(1);
      for (let index = 0; index < ITEMS; index++) expect(await t.stores.batchResults!.open(id, index)).toBeUndefined();
    },
    120_000,
  );
});
