// What a render thread keeps between branded renders: shape tiles, resized logos, caption bands and scan verdicts, all bounded.
import { LRUCache } from 'lru-cache';
import { loadDecoder } from './scan-check.js';

export interface RawImage {
  width: number;
  height: number;
  /** Non-premultiplied RGBA, 4 bytes per pixel. */
  rgba: Uint8Array;
}

const bytesOf = (value: { byteLength: number }) => Math.max(1, value.byteLength);

/**
 * One instance per thread (the render thread's entry and the inline renderer each own one), never module
 * state. A cached logo costs one sharp resize per (logo, pixel size); a design costs one decode per
 * (QR version, error correction, design) — the verdict cache is what makes the scan guarantee cheap at volume.
 */
export class DesignCaches {
  /** Shape tiles, and logos resized and laid over their background. */
  readonly tiles = new LRUCache<string, Uint32Array>({ maxSize: 48 * 1024 * 1024, sizeCalculation: bytesOf });
  readonly captions = new LRUCache<string, RawImage>({ maxSize: 16 * 1024 * 1024, sizeCalculation: (image) => bytesOf(image.rgba) });
  readonly verdicts = new LRUCache<string, boolean>({ max: 20_000 });
  #decoder: Promise<void> | undefined;

  /** The in-process decoder, loaded on the first scan check of this thread. */
  decoderReady(): Promise<void> {
    this.#decoder ??= loadDecoder();
    return this.#decoder;
  }
}
