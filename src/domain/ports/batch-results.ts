// Port: the rendered files of batches, readable from every API instance.
import type { Readable } from 'node:stream';

/**
 * Contract: `put` is idempotent (the same item written again replaces the file, never adds one) and
 * atomic (a reader sees the whole file or none); `remove` deletes every file of the batch.
 */
export interface BatchResults {
  put(batchId: string, index: number, bytes: Uint8Array): Promise<void>;
  /**
   * Optional: where on this machine a render thread may write the items itself, exactly as `put` does (a
   * temporary file renamed over the item's), so the bytes never come back to the event loop. Absent: `put`.
   */
  localPaths?(batchId: string, indexes: readonly number[]): string[];
  /** The file as a stream, or undefined when it is not there. */
  open(batchId: string, index: number): Promise<Readable | undefined>;
  remove(batchId: string): Promise<void>;
}
