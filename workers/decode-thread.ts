// Piscina task entry: reads the QR codes in one image on a worker thread (the decode endpoint's CPU work, off the event
// loop).
import type { DecodeOutcome } from '../src/domain/ports/qr-decoder.js';
import { decodeImage, type DecodeTask } from '../src/render/decode-image.js';

export default function decode(task: DecodeTask): Promise<DecodeOutcome> {
  return decodeImage(task.image, task.maxPixels, { budgetMs: task.budgetMs });
}
