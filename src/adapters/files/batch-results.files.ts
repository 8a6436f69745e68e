// BatchResults on the file system: one directory per batch under QR_DATA_DIR/batches, one file per item.
import { createReadStream, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { BATCH_ID } from '../../domain/batches/batch-id.js';
import type { BatchResults } from '../../domain/ports/batch-results.js';

/**
 * One item's file, whole or not at all: a temporary file beside it, renamed over it. Synchronous on purpose: for
 * files this small the promise API's threadpool hops cost more CPU than the writes, and a batch is CPU-bound
 * (docs/decisions/batch-result-files-sync.md). Render threads call it too.
 */
export function writeItemFile(path: string, bytes: Uint8Array): void {
  const temporary = `${path}.${randomUUID()}.tmp`;
  writeFileSync(temporary, bytes);
  renameSync(temporary, path);
}

export class FileBatchResults implements BatchResults {
  readonly #root: string;

  constructor(dataDir: string) {
    this.#root = join(dataDir, 'batches');
  }

  #dir(batchId: string): string {
    // The id becomes a path segment: only ids we made may.
    if (!BATCH_ID.test(batchId)) throw new Error(`not a batch id: ${JSON.stringify(batchId)}`);
    return join(this.#root, batchId);
  }

  /**
   * Written beside the item's file and renamed over it: a reader sees an old whole file or the new whole file,
   * never a torn one, even when two workers write the same item at once (a chunk run again while the first run
   * still renders). A crash leaves at most a stray temporary file, removed with the batch's directory.
   */
  async put(batchId: string, index: number, bytes: Uint8Array): Promise<void> {
    const dir = this.#dir(batchId);
    const path = join(dir, String(index));
    try {
      writeItemFile(path, bytes);
    } catch (error) {
      // The batch's first file makes its directory: one mkdir per batch rather than per item.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      mkdirSync(dir, { recursive: true });
      writeItemFile(path, bytes);
    }
  }

  /** The items' paths, their directory made: a render thread writes them with writeItemFile, as put does. */
  localPaths(batchId: string, indexes: readonly number[]): string[] {
    const dir = this.#dir(batchId);
    mkdirSync(dir, { recursive: true });
    return indexes.map((index) => join(dir, String(index)));
  }

  async open(batchId: string, index: number): Promise<Readable | undefined> {
    const path = join(this.#dir(batchId), String(index));
    const stream = createReadStream(path);
    return new Promise((resolve, reject) => {
      stream.once('open', () => resolve(stream));
      stream.once('error', (error: NodeJS.ErrnoException) =>
        error.code === 'ENOENT' ? resolve(undefined) : reject(error),
      );
    });
  }

  async remove(batchId: string): Promise<void> {
    await rm(this.#dir(batchId), { recursive: true, force: true });
  }
}
