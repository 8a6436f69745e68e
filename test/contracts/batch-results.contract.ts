// Contract suite for the BatchResults port: exact bytes back, put idempotent and never torn, remove takes every file of
// a batch.
import { describe, expect, it } from 'vitest';
import type { Readable } from 'node:stream';
import { newBatchId } from '../../src/domain/batches/batch-id.js';
import type { BatchResults } from '../../src/domain/ports/batch-results.js';

/**
 * `storedFiles` counts what the adapter really holds for a batch (files on disk, GridFS file documents): "replaces,
 * never adds" is checked there.
 */
export interface BatchResultsUnderTest {
  results: BatchResults;
  storedFiles(batchId: string): Promise<number>;
}

// Deterministic contents: each (seed, length) gives the same bytes every run.
function bytesOf(seed: number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 31 + seed * 7 + (i >> 8)) & 0xff;
  return bytes;
}

async function readAll(stream: Readable | undefined): Promise<Buffer | undefined> {
  if (!stream) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

export function batchResultsContract(adapterName: string, make: () => Promise<BatchResultsUnderTest>): void {
  describe(`BatchResults contract: ${adapterName}`, () => {
    it('gives back exactly the bytes put, per item, and undefined for an item or batch it does not hold', async () => {
      const { results } = await make();
      const batchId = newBatchId(new Date());
      await results.put(batchId, 0, bytesOf(1, 1_000));
      await results.put(batchId, 7, bytesOf(2, 0));
      expect(await readAll(await results.open(batchId, 0))).toEqual(Buffer.from(bytesOf(1, 1_000)));
      expect(await readAll(await results.open(batchId, 7))).toEqual(Buffer.alloc(0));
      expect(await results.open(batchId, 1)).toBeUndefined();
      expect(await results.open(newBatchId(new Date()), 0)).toBeUndefined();
    });

    it('keeps files larger than one storage chunk whole', async () => {
      const { results } = await make();
      const batchId = newBatchId(new Date());
      // Over two GridFS chunks (255 KiB each) and not a multiple of one.
      const big = bytesOf(3, 600_001);
      await results.put(batchId, 0, big);
      const read = await readAll(await results.open(batchId, 0));
      // Buffer.equals, not toEqual: a deep diff of 600 kB takes seconds.
      expect(read?.length).toBe(big.length);
      expect(read!.equals(big)).toBe(true);
    });

    it('replaces an item written again, never adds a second file', async () => {
      const { results, storedFiles } = await make();
      const batchId = newBatchId(new Date());
      await results.put(batchId, 0, bytesOf(4, 500));
      await results.put(batchId, 0, bytesOf(5, 300));
      await results.put(batchId, 1, bytesOf(6, 10));
      expect(await readAll(await results.open(batchId, 0))).toEqual(Buffer.from(bytesOf(5, 300)));
      expect(await storedFiles(batchId)).toBe(2);
    });

    it('ends with one whole file when the same item is written several times at once', async () => {
      const { results, storedFiles } = await make();
      const batchId = newBatchId(new Date());
      const versions = [7, 8, 9, 10, 11].map((seed) => Buffer.from(bytesOf(seed, 300_000 + seed)));
      await Promise.all(versions.map((bytes) => results.put(batchId, 0, bytes)));
      const read = await readAll(await results.open(batchId, 0));
      expect(versions.some((bytes) => bytes.equals(read!))).toBe(true);
      expect(await storedFiles(batchId)).toBe(1);
    });

    it('removes every file of a batch and nothing of another', async () => {
      const { results, storedFiles } = await make();
      const [doomed, kept] = [newBatchId(new Date()), newBatchId(new Date())];
      for (let index = 0; index < 3; index++) await results.put(doomed, index, bytesOf(index, 100));
      await results.put(kept, 0, bytesOf(12, 100));
      await results.remove(doomed);
      for (let index = 0; index < 3; index++) expect(await results.open(doomed, index)).toBeUndefined();
      expect(await storedFiles(doomed)).toBe(0);
      expect(await readAll(await results.open(kept, 0))).toEqual(Buffer.from(bytesOf(12, 100)));
      await results.remove(doomed);
      await results.remove(newBatchId(new Date()));
    });

    it('refuses names that are not batch ids', async () => {
      const { results } = await make();
      await expect(results.put('../etc', 0, bytesOf(1, 1))).rejects.toThrow(/batch id/);
      await expect(results.open('bat_x', 0)).rejects.toThrow(/batch id/);
      await expect(results.remove('')).rejects.toThrow(/batch id/);
    });
  });
}
