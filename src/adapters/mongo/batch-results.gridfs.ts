// BatchResults in MongoDB GridFS: one GridFS file per batch item (filename `<batchId>/<index>`), readable from every
// API instance.
import type { Readable } from 'node:stream';
import { mongo, type Connection } from 'mongoose';
import { BATCH_ID } from '../../domain/batches/batch-id.js';
import type { BatchResults } from '../../domain/ports/batch-results.js';

const BUCKET = 'batchResults';

interface ItemMetadata {
  batchId: string;
  index: number;
}

export class GridFsBatchResults implements BatchResults {
  readonly #bucket: mongo.GridFSBucket;

  private constructor(bucket: mongo.GridFSBucket) {
    this.#bucket = bucket;
  }

  /** Opens the bucket on the connection's database and makes sure `remove` finds a batch's files by index. */
  static async open(connection: Connection): Promise<GridFsBatchResults> {
    const db = connection.db;
    if (!db) throw new Error('the MongoDB connection is not open');
    await db.collection(`${BUCKET}.files`).createIndex({ 'metadata.batchId': 1 }, { name: 'metadata.batchId_1' });
    return new GridFsBatchResults(new mongo.GridFSBucket(db, { bucketName: BUCKET }));
  }

  async put(batchId: string, index: number, bytes: Uint8Array): Promise<void> {
    const filename = itemName(batchId, index);
    const metadata: ItemMetadata = { batchId, index };
    // GridFS writes the chunks first and the file document last: a reader sees the whole file or none.
    await new Promise<void>((resolve, reject) => {
      const upload = this.#bucket.openUploadStream(filename, { metadata });
      upload.once('error', reject);
      upload.once('finish', () => resolve());
      upload.end(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    });
    // Then every older copy of the item goes. Keeping the newest (not "the one I wrote") means two writers of the
    // same item racing here agree on the survivor, so the item always ends with exactly one file.
    const copies = await this.#bucket
      .find({ filename }, { sort: { uploadDate: -1, _id: -1 }, projection: { _id: 1 } })
      .toArray();
    for (const older of copies.slice(1)) await deleteIgnoringMissing(this.#bucket, older._id);
  }

  async open(batchId: string, index: number): Promise<Readable | undefined> {
    const [newest] = await this.#bucket
      .find({ filename: itemName(batchId, index) }, { sort: { uploadDate: -1, _id: -1 }, limit: 1 })
      .toArray();
    return newest ? this.#bucket.openDownloadStream(newest._id) : undefined;
  }

  async remove(batchId: string): Promise<void> {
    checkBatchId(batchId);
    const files = await this.#bucket.find({ 'metadata.batchId': batchId }, { projection: { _id: 1 } }).toArray();
    for (const file of files) await deleteIgnoringMissing(this.#bucket, file._id);
  }
}

function checkBatchId(batchId: string): void {
  // Same rule as the file store: only ids we made name results.
  if (!BATCH_ID.test(batchId)) throw new Error(`not a batch id: ${JSON.stringify(batchId)}`);
}

function itemName(batchId: string, index: number): string {
  checkBatchId(batchId);
  if (!Number.isSafeInteger(index) || index < 0) throw new Error(`not an item index: ${index}`);
  return `${batchId}/${index}`;
}

/** Deletes a file and its chunks; a file another writer or remover already deleted is not an error. */
async function deleteIgnoringMissing(bucket: mongo.GridFSBucket, id: mongo.ObjectId): Promise<void> {
  try {
    await bucket.delete(id);
  } catch (error) {
    if (!(error instanceof mongo.MongoRuntimeError && /File not found/i.test(error.message))) throw error;
  }
}
