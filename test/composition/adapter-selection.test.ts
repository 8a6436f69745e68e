// createStores picks each adapter by its own variable; bad combinations stop at start with a message naming the
// variable.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStores } from '../../src/composition/stores.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { newBatchId } from '../../src/domain/batches/batch-id.js';
import { dropDatabase, mongoTargetLabel, startMongoTarget } from '../helpers/mongo-standin.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';

let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.destroy();
});

describe('adapter selection', () => {
  it('with no variable runs everything embedded, the jobs included', async () => {
    const stores = await createStores(loadConfig({ QR_DATA_DIR: ':memory:' }));
    try {
      expect(Object.keys(stores.probes)).toEqual(['sqlite']);
      expect(stores.jobs).toBeUndefined();
      expect(stores.usageCounters).toBeUndefined();
    } finally {
      await stores.close();
    }
  });

  it('with REDIS_URL alone meters on Redis over the SQLite store, and leaves the jobs to the worker', async () => {
    const stores = await createStores(loadConfig({ QR_DATA_DIR: ':memory:', REDIS_URL: redis.url }), {
      redisKeyPrefix: `t-${randomUUID()}:`,
    });
    try {
      expect(Object.keys(stores.probes).sort()).toEqual(['redis', 'sqlite']);
      expect(stores.jobs).toBe('jobs-process');
      expect(stores.usageCounters).toBeDefined();
      const at = new Date();
      await stores.meter.reserve({
        accountId: 'acc_x',
        period: '2026-11',
        qr: { fingerprint: 'f', type: 'text', payload: 'p' },
        limits: { requests: 1, qrs: 1 },
        at,
      });
      expect(await stores.usageCounters!.periods()).toEqual(['2026-11']);
    } finally {
      await stores.close();
    }
  });

  // A real server when MONGODB_URL is set, else the wire-level stand-in: it shows the wiring, not MongoDB's behaviour.
  it(
    `with REDIS_URL + MONGODB_URL keeps records, batches included, in MongoDB and batch results in GridFS, ` +
      `nothing in QR_DATA_DIR (${mongoTargetLabel()})`,
    async () => {
      const mongo = await startMongoTarget();
      const dataDir = await mkdtemp(join(tmpdir(), 'qrm-selection-'));
      const dbName = `qrm_selection_${randomUUID().slice(0, 8)}`;
      try {
        const config = loadConfig({ QR_DATA_DIR: dataDir, REDIS_URL: redis.url, MONGODB_URL: mongo.url });
        const stores = await createStores(config, { redisKeyPrefix: `t-${randomUUID()}:`, mongoDbName: dbName });
        try {
          expect(Object.keys(stores.probes).sort()).toEqual(['mongo', 'redis']);
          expect(stores.batches).toBeDefined();
          const batchId = newBatchId(new Date());
          await stores.batchResults!.put(batchId, 0, new Uint8Array([1, 2, 3]));
          const read: Buffer[] = [];
          for await (const chunk of (await stores.batchResults!.open(batchId, 0))!) read.push(chunk as Buffer);
          expect(Buffer.concat(read)).toEqual(Buffer.from([1, 2, 3]));
          // Not on the local disk: every instance reads it from MongoDB.
          expect(existsSync(join(dataDir, 'batches'))).toBe(false);
          expect(stores.batches!.constructor.name).not.toBe('SqliteBatchStore');
          await stores.batches!.webhookSecret('acc_selection');
          expect(await readdir(dataDir)).toEqual([]);
        } finally {
          await stores.close();
          await dropDatabase(mongo.url, dbName);
        }
      } finally {
        await mongo.stop();
        await rm(dataDir, { recursive: true, force: true });
      }
    },
    30_000,
  );

  it('refuses MONGODB_URL without REDIS_URL, and URLs of the wrong kind', () => {
    expect(() => loadConfig({ MONGODB_URL: 'mongodb://localhost:27017/qrm' })).toThrow(ConfigError);
    expect(() => loadConfig({ MONGODB_URL: 'mongodb://localhost:27017/qrm' })).toThrow(/MONGODB_URL/);
    expect(() => loadConfig({ REDIS_URL: 'http://localhost:6379' })).toThrow(/REDIS_URL/);
    expect(() => loadConfig({ REDIS_URL: 'redis://r:6379', MONGODB_URL: 'postgres://x' })).toThrow(/MONGODB_URL/);
  });

  it('accepts a replica-set MongoDB URL with several hosts', () => {
    const config = loadConfig({
      REDIS_URL: 'redis://r:6379',
      MONGODB_URL: 'mongodb://a:27017,b:27017/qrm?replicaSet=rs0',
    });
    expect(config.mongodbUrl).toBe('mongodb://a:27017,b:27017/qrm?replicaSet=rs0');
  });
});
