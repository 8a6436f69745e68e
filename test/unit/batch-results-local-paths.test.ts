// Batch results on files: what a render thread writes at localPaths reads back exactly as what put wrote, one whole
// file per item.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { FileBatchResults, writeItemFile } from '../../src/adapters/files/batch-results.files.js';
import { newBatchId } from '../../src/domain/batches/batch-id.js';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function readAll(stream: Readable | undefined): Promise<Buffer | undefined> {
  if (!stream) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

describe('FileBatchResults.localPaths', () => {
  it('names files that open() serves, in the batch directory it makes, leaving no temporary file', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'qrm-local-paths-'));
    dirs.push(dataDir);
    const results = new FileBatchResults(dataDir);
    const batchId = newBatchId(new Date());
    const paths = results.localPaths(batchId, [3, 9]);
    expect(paths).toEqual([join(dataDir, 'batches', batchId, '3'), join(dataDir, 'batches', batchId, '9')]);
    writeItemFile(paths[0]!, new Uint8Array([1, 2, 3]));
    // The same item written again, by put this time (a chunk run twice): replaced, never added.
    await results.put(batchId, 3, new Uint8Array([4, 5]));
    writeItemFile(paths[1]!, new Uint8Array([6]));
    expect(await readAll(await results.open(batchId, 3))).toEqual(Buffer.from([4, 5]));
    expect(await readAll(await results.open(batchId, 9))).toEqual(Buffer.from([6]));
    expect((await readdir(join(dataDir, 'batches', batchId))).sort()).toEqual(['3', '9']);
    expect(() => results.localPaths('../escape', [0])).toThrow(/not a batch id/);
  });
});
