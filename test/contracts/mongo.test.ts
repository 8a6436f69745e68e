// Runs the port contracts against the MongoDB adapters: a real server when MONGODB_URL names one, else the wire-level
// STAND-IN (never proof of MongoDB).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Batch, BatchItem } from '../../src/domain/batches/batch.js';
import { newBatchId } from '../../src/domain/batches/batch-id.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import mongoose, { type Connection, type Model } from 'mongoose';
import { openMongoConnection } from '../../src/adapters/mongo/connection.js';
import { defineMongoModels, SHARD_KEYS } from '../../src/adapters/mongo/models.js';
import { createMongoStores } from '../../src/adapters/mongo/mongo-stores.js';
import type { RecordStores } from '../../src/adapters/contract.js';
import { readRecordedCommands, shardKeyProblems } from '../helpers/shard-key-audit.js';
import { mongoTargetLabel, startMongoTarget, type MongoTarget } from '../helpers/mongo-standin.js';
import { accountStoreContract } from './account-store.contract.js';
import { batchResultsContract } from './batch-results.contract.js';
import { batchStoreContract } from './batch-store.contract.js';
import { dynamicCodeStoreContract } from './dynamic-code-store.contract.js';
import { scanWebhookStoreContract } from './scan-webhooks.contract.js';
import { keyStoreContract } from './key-store.contract.js';
import { auditLogContract } from './audit-log.contract.js';
import { memberStoreContract } from './member-store.contract.js';
import { signingKeyStoreContract } from './signing-key-store.contract.js';
import { designStoreContract } from './design-store.contract.js';
import { logoStoreContract } from './logo-store.contract.js';
import { customDomainStoreContract } from './custom-domain-store.contract.js';
import { scanLedgerContract } from './scan-ledger.contract.js';
import { usageLedgerContract } from './usage-ledger.contract.js';

/** A queued batch of three URL items, as the accept use case stores it. */
function newQueuedBatch(): Batch {
  const at = new Date();
  return {
    id: newBatchId(at),
    accountId: `acc_${randomUUID()}`,
    plan: 'pro',
    status: 'queued',
    total: 3,
    succeeded: 0,
    failed: 0,
    cancelled: 0,
    period: '2026-05',
    createdAt: at,
    startedAt: undefined,
    finishedAt: undefined,
    webhookUrl: undefined,
    idempotencyKey: undefined,
    requestHash: 'b'.repeat(64),
  };
}

function threeItems(batchId: string): BatchItem[] {
  return [0, 1, 2].map((index) => ({
    index,
    name: undefined,
    file: `${index}.png`,
    type: 'url',
    fingerprint: `${batchId}-${index}`,
    spec: {
      payload: `https://example.com/${index}`,
      format: 'png',
      size: 128,
      margin: 4,
      errorCorrection: 'M',
      darkColor: '#000000ff',
      lightColor: '#ffffffff',
    },
  }));
}

const TITLE = `MongoDB contract suite against ${mongoTargetLabel()}`;

/** Marks the test's own look across a whole collection: not an adapter's command, left out of the shard-key check. */
const INSPECTOR = 'test inspector';
/** Every command the stand-in receives during the contract suites, for the shard-key check after them. */
const RECORDED = join(mkdtempSync(join(tmpdir(), 'qrm-mongo-commands-')), 'commands.jsonl');

// No MongoDB server can be installed on the machines this is built on (docs/deployment.md): without MONGODB_URL the
// suite
// runs against the stand-in, a smoke test of the query shapes, and says so loudly in the output and in its title.
if (!process.env.MONGODB_URL) console.warn(`\n  ⚠ ${TITLE}\n`);

describe(TITLE, () => {
  // A fresh database per run, dropped at the end: runs never see each other's data.
  const dbName = `qrm_contract_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  let target: MongoTarget | undefined;
  let stores: RecordStores;
  // A second connection of its own, to look at what GridFS really holds.
  let inspector: Connection;

  beforeAll(async () => {
    target = await startMongoTarget({ recordTo: RECORDED });
    stores = await createMongoStores(target.url, { dbName });
    inspector = await openMongoConnection(target.url, { dbName });
  }, 20_000);
  afterAll(async () => {
    if (inspector) {
      await inspector.dropDatabase();
      await inspector.close();
    }
    await stores?.close();
    await target?.stop();
    rmSync(dirname(RECORDED), { recursive: true, force: true });
  });

  accountStoreContract('mongodb', () => stores.accounts);
  keyStoreContract('mongodb', async () => stores);
  auditLogContract('mongodb', async () => stores);
  signingKeyStoreContract('mongodb', async () => stores);
  designStoreContract('mongodb', async () => stores);
  logoStoreContract('mongodb', async () => stores);
  customDomainStoreContract('mongodb', async () => stores);
  memberStoreContract('mongodb', async () => stores);
  usageLedgerContract('mongodb', () => stores.usageLedger);
  dynamicCodeStoreContract('mongodb', async () => stores);
  scanWebhookStoreContract('mongodb', async () => stores);
  scanLedgerContract('mongodb', () => stores.scanLedger);
  batchStoreContract('mongodb', async () => stores.batches!);
  // Without transactions a writer can die after moving items and before recounting: the next chunk's start repairs it.
  it('repairs the counts a render worker killed between the items and the batch left short', async () => {
    const batches = stores.batches!;
    const batch = newQueuedBatch();
    await batches.create(batch, threeItems(batch.id));
    await batches.markRunning(batch.id, new Date());
    await inspector.db!.collection('batch_items').updateMany({ batchId: batch.id }, { $set: { state: 'succeeded' } });
    expect(await batches.getById(batch.id)).toMatchObject({ status: 'running', succeeded: 0 });
    await batches.markRunning(batch.id, new Date()); // what the re-run chunk does first
    expect(await batches.getById(batch.id)).toMatchObject({ status: 'completed', succeeded: 3, failed: 0 });
    expect((await batches.finishItems(batch.id, [{ index: 0, state: 'succeeded' }], new Date())).moved).toBe(0);
    expect(await batches.getById(batch.id)).toMatchObject({ succeeded: 3 });
  });

  batchResultsContract('mongodb (GridFS)', async () => ({
    results: stores.batchResults!,
    storedFiles: async (batchId) => {
      const db = inspector.db!;
      // No chunk outlives its file (the contract's cases run one at a time, so no upload is half-done here).
      const allFiles = await db.collection('batchResults.files').distinct('_id');
      expect(
        await db
          .collection('batchResults.chunks')
          .distinct('files_id', { files_id: { $nin: allFiles } }, { comment: INSPECTOR }),
      ).toEqual([]);
      return db.collection('batchResults.files').countDocuments({ 'metadata.batchId': batchId });
    },
  }));

  // Last, after every suite above: the shard keys as declared, then each command those suites made the adapters send.
  it('declares each shard key of the table on its model, every unique index starting with it', async () => {
    const models = Object.values(defineMongoModels(mongoose.createConnection())) as Array<Model<unknown>>;
    const declared = Object.fromEntries(
      models
        .filter((model) => model.schema.get('shardKey'))
        .map((model) => [model.collection.collectionName, model.schema.get('shardKey')]),
    );
    const { 'batchResults.chunks': gridfsChunks, ...modelled } = SHARD_KEYS;
    expect(gridfsChunks).toEqual({ files_id: 1, n: 1 });
    expect(declared).toEqual(modelled);
    for (const model of models) {
      const key = Object.keys((model.schema.get('shardKey') as Record<string, number> | undefined) ?? {});
      if (key.length === 0) continue;
      for (const [fields, options] of model.schema.indexes()) {
        if (options.unique)
          expect(
            Object.keys(fields).slice(0, key.length),
            `${model.collection.collectionName} ${JSON.stringify(fields)}`,
          ).toEqual(key);
      }
    }
  });

  it.skipIf(!!process.env.MONGODB_URL)(
    'sends every command on a sharded collection with its shard key in the filter (the upserts with all of it)',
    async () => {
      const commands = (await readRecordedCommands(RECORDED)).filter(({ doc }) => doc.comment !== INSPECTOR);
      const sharded = commands.filter(
        ({ command, doc }) => typeof doc[command] === 'string' && (doc[command] as string) in SHARD_KEYS,
      );
      // Every sharded collection was reached by the suites: the check below covered something on each.
      expect(new Set(sharded.map(({ command, doc }) => doc[command] as string))).toEqual(
        new Set(Object.keys(SHARD_KEYS)),
      );
      expect(shardKeyProblems(commands, SHARD_KEYS)).toEqual([]);
    },
  );
});
