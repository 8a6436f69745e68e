// Piscina task entry: reads the QR codes in one image on a worker thread (the decode endpoint's CPU work, off the event
// loop).
import type { DecodeOutcome } from '../src/domain/ports/qr-decoder.js';
import { decodeImage, type DecodeTask } from '../src/render/decode-image.js';
import { ZbarReader } from '../src/render/branded/scan-check.js';

/** The thread's zbar scanner: lives as long as the thread. */
const zbar = new ZbarReader();

export default function decode(task: DecodeTask): Promise<DecodeOutcome> {
  return decodeImage(task.image, task.maxPixels, { budgetMs: task.budgetMs }, zbar);
}
