// renderChunk on the real SQLite store, files and render pool: a batch cancelled mid-chunk starts no further group of
// it,
// and a retried cancel does not delete it while its last group is still being drawn.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileBatchResults } from '../../src/adapters/files/batch-results.files.js';
import { InProcessBatchRunner } from '../../src/adapters/queue/in-process-batch-runner.js';
import { createRenderPipeline } from '../../src/adapters/render/render-pipeline.js';
import { createSqliteStores } from '../../src/adapters/sqlite/sqlite-stores.js';
import { BATCH_GROUP_COST, type Batch, type BatchItem } from '../../src/domain/batches/batch.js';
import { cancelOrDeleteBatch } from '../../src/services/batches/cancel-batch.js';
import { renderChunk, type RenderChunkDeps } from '../../src/services/batches/render-chunk.js';
import { decodePngFiles } from '../helpers/decode.js';
import { pngItems, queuedBatch } from '../helpers/render-fixtures.js';
import { waitFor } from '../helpers/wait.js';

const NOW = new Date('2026-11-23T09:00:00.000Z');
const ACCOUNT = 'acc_render_chunk_cancel';
// Items of cost 1 (512 px PNG): one group is BATCH_GROUP_COST items, and the chunk holds four groups.
const TOTAL = BATCH_GROUP_COST * 4;

const dataDir = mkdtempSync(join(tmpdir(), 'qrm-chunk-cancel-'));
const stores = createSqliteStores(':memory:');
const pipeline = createRenderPipeline({
  renderThreads: 1,
  renderMaxQueue: 256,
  renderInlineMaxPixels: 0,
  imageCacheBytes: 0,
});
afterAll(async () => {
  await pipeline.close();
  await stores.close?.();
  rmSync(dataDir, { recursive: true, force: true });
});

function batchOf(total: number): { batch: Batch; items: BatchItem[] } {
  const batch = queuedBatch(ACCOUNT, total, NOW);
  return { batch, items: pngItems(batch, (index) => `https://example.com/cancel/${index}`) };
}

/** The real store, files and meter, one group at a time, rendered by `renderMany` (which wraps the real pipeline). */
function chunkDeps(results: FileBatchResults, renderMany: RenderChunkDeps['renderer']['renderMany']): RenderChunkDeps {
  return {
    batches: stores.batches!,
    results,
    meter: stores.meter,
    logos: stores.logos,
    clock: () => NOW,
    concurrency: 1,
    renderer: { renderMany },
  };
}

describe('renderChunk and a cancel', () => {
  it(
    'renders no group of the chunk after the one during ' + 'which the batch was cancelled, and counts exactly',
    async () => {
      const batches = stores.batches!;
      const results = new FileBatchResults(dataDir);
      const { batch, items } = batchOf(TOTAL);
      await batches.create(batch, items);
      let groupsRendered = 0;
      const deps = chunkDeps(results, async (specs, caller, files) => {
        groupsRendered++;
        const outcomes = await pipeline.renderManyOnPool(specs, caller, files!);
        // The owner cancels while the first group renders: its items are still pending, so they are cancelled too.
        if (groupsRendered === 1) await batches.cancel(ACCOUNT, batch.id, NOW);
        return outcomes;
      });
      const moved = await renderChunk(deps, { batchId: batch.id, from: 0, to: TOTAL });
      expect(groupsRendered).toBe(1);
      expect(moved).toBe(0);
      const after = (await batches.getById(batch.id))!;
      expect(after).toMatchObject({ status: 'cancelled', succeeded: 0, failed: 0, cancelled: TOTAL });
      // The one group's files were written before its items were found cancelled; each is a whole, readable code.
      const dir = join(dataDir, 'batches', batch.id);
      const files = readdirSync(dir);
      expect(files).toHaveLength(BATCH_GROUP_COST);
      const decoded = await decodePngFiles(files.map((file) => join(dir, file)));
      expect(decoded.map((d) => d.zbar).sort()).toEqual(
        files.map((file) => `https://example.com/cancel/${file}`).sort(),
      );
      expect(decoded.every((d) => d.zbar === d.zxing && d.zbar === d.jsqr)).toBe(true);
    },
  );

  it(
    'answers a retried DELETE with the cancelled batch, unchanged, while its group is drawn; the DELETE after ' +
      'deletes it',
    async () => {
      const batches = stores.batches!;
      const results = new FileBatchResults(dataDir);
      const { batch, items } = batchOf(TOTAL);
      await batches.create(batch, items);
      let entered!: () => void;
      const groupStarted = new Promise<void>((resolve) => (entered = resolve));
      let release!: () => void;
      const groupMayFinish = new Promise<void>((resolve) => (release = resolve));
      const runner = new InProcessBatchRunner(
        chunkDeps(results, async (specs, caller, files) => {
          entered();
          await groupMayFinish;
          return pipeline.renderManyOnPool(specs, caller, files!);
        }),
      );
      const deps = { batches, results, meter: stores.meter, clock: () => NOW, queue: runner };
      await runner.enqueue(batch);
      await groupStarted;

      expect(await cancelOrDeleteBatch(deps, ACCOUNT, batch.id)).toMatchObject({
        status: 'cancelled',
        cancelled: TOTAL,
      });
      // The client did not hear the 200 and sends its DELETE again: the group is still being drawn, so nothing changes.
      expect(await runner.rendering(batch.id)).toBe(true);
      expect(await cancelOrDeleteBatch(deps, ACCOUNT, batch.id)).toMatchObject({ id: batch.id, status: 'cancelled' });
      expect(await batches.getById(batch.id)).toMatchObject({ status: 'cancelled' });

      release();
      await waitFor('the cancelled chunk to settle', async () => !(await runner.rendering(batch.id)));
      const dir = join(dataDir, 'batches', batch.id);
      expect(readdirSync(dir)).toHaveLength(BATCH_GROUP_COST);

      expect(await cancelOrDeleteBatch(deps, ACCOUNT, batch.id)).toBeUndefined();
      expect(await batches.getById(batch.id)).toBeUndefined();
      expect(existsSync(dir)).toBe(false);
      await runner.stop();
    },
  );
});
