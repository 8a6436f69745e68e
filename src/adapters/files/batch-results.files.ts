// BatchResults on the file system: one directory per batch under QR_DATA_DIR/batches, one file per item.
import { createReadStream } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { BATCH_ID } from '../../domain/batches/batch-id.js';
import type { BatchResults } from '../../domain/ports/batch-results.js';

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

  async put(batchId: string, index: number, bytes: Uint8Array): Promise<void> {
    const dir = this.#dir(batchId);
    await mkdir(dir, { recursive: true });
    // Written aside, then renamed over: a crash mid-write leaves a stray temp file, never a torn result.
    const temp = join(dir, `${index}.${randomUUID()}.tmp`);
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(bytes);
    } finally {
      await handle.close();
    }
    await rename(temp, join(dir, String(index)));
  }

  async open(batchId: string, index: number): Promise<Readable | undefined> {
    const path = join(this.#dir(batchId), String(index));
    const stream = createReadStream(path);
    return new Promise((resolve, reject) => {
      stream.once('open', () => resolve(stream));
      stream.once('error', (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? resolve(undefined) : reject(error)));
    });
  }

  async remove(batchId: string): Promise<void> {
    await rm(this.#dir(batchId), { recursive: true, force: true });
  }
}
