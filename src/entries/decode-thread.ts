// Piscina task entry: reads the QR codes in one image on a worker thread (the decode endpoint's CPU work, off the event loop).
import type { DecodeOutcome } from '../domain/ports/qr-decoder.js';
import { decodeImage } from '../render/decode-image.js';

export default function decode(task: { image: Uint8Array; maxPixels: number }): Promise<DecodeOutcome> {
  return decodeImage(task.image, task.maxPixels);
}
