// The ZIP of a finished batch, streamed: one stored (not recompressed) file per rendered item, then manifest.csv.
import type { Readable } from 'node:stream';
import type { Batch } from '../../../domain/batches/batch.js';
import type { BatchResults } from '../../../domain/ports/batch-results.js';
import type { BatchStore } from '../../../domain/ports/batch-store.js';
import { csvCell } from '../../../domain/csv-cell.js';

const PAGE = 1_000;

/** codeId and shortUrl: the dynamic code an item made (`dynamic`), empty for the others. */
export const MANIFEST_HEADER = 'index,name,file,status,error,codeId,shortUrl';

/**
 * Entries are added up front (one page of items at a time) but their files are opened only when the
 * ZIP writer reaches them, so a 10,000-item archive holds one file open at a time.
 */
export async function batchArchive(
  batch: Batch,
  deps: { batches: BatchStore; results: BatchResults },
): Promise<Readable> {
  const { ZipFile } = await import('yazl'); // loaded on the first archive, not at start-up
  const zip = new ZipFile();
  const manifest: string[] = [MANIFEST_HEADER];
  const mtime = batch.finishedAt ?? batch.createdAt;
  for (let from = 0; from < batch.total; from += PAGE) {
    for (const item of await deps.batches.items(batch.id, from, from + PAGE)) {
      const rendered = item.state === 'succeeded';
      const shortUrl = item.codeId === undefined ? undefined : item.spec.payload;
      manifest.push(
        [
          item.index,
          csvCell(item.name),
          csvCell(rendered ? item.file : ''),
          item.state,
          csvCell(item.errorCode),
          csvCell(item.codeId),
          csvCell(shortUrl),
        ].join(','),
      );
      if (!rendered) continue;
      // Images are compressed already: stored as they are, the archive streams at disk speed.
      zip.addReadStreamLazy(item.file, { compress: false, mtime }, (done) => {
        deps.results.open(batch.id, item.index).then(
          (stream) =>
            stream
              ? done(null, stream)
              : done(new Error(`result file of item ${item.index} is missing`), undefined as never),
          (error: Error) => done(error, undefined as never),
        );
      });
    }
  }
  zip.addBuffer(Buffer.from(`${manifest.join('\r\n')}\r\n`), 'manifest.csv', { mtime });
  zip.end();
  const output = zip.outputStream as Readable; // a PassThrough, typed loosely by @types/yazl
  // A file that cannot be read ends the download with an error (the client sees a truncated body), never the process.
  zip.on('error', (error: Error) => output.destroy(error));
  return output;
}
