// What a render thread keeps between branded renders: shape tiles, resized logos, caption bands and scan verdicts, all bounded.
import { LRUCache } from 'lru-cache';
import type { DesignArt } from './design-raster.js';
import { loadDecoder } from './scan-check.js';

export interface RawImage {
  width: number;
  height: number;
  /** Non-premultiplied RGBA, 4 bytes per pixel. */
  rgba: Uint8Array;
}

const bytesOf = (value: { byteLength: number }) => Math.max(1, value.byteLength);
const tileBytes = (tiles: object) => Object.values(tiles).reduce((sum: number, tile: { byteLength: number } | undefined) => sum + (tile?.byteLength ?? 0), 0);
const artBytes = (art: DesignArt) => Math.max(1, tileBytes(art.rgba) + (art.indexed ? tileBytes(art.indexed.tiles) + art.indexed.palette.byteLength : 0));

/**
 * One instance per thread (the render thread's entry and the inline renderer each own one), never module
 * state. A cached logo costs one sharp resize per (logo, pixel size); a design costs one decode per
 * (QR version, error correction, design) — the verdict cache is what makes the scan guarantee cheap at volume.
 */
export class DesignCaches {
  /** Shape tiles, and logos resized and laid over their background. */
  readonly tiles = new LRUCache<string, Uint32Array>({ maxSize: 48 * 1024 * 1024, sizeCalculation: bytesOf });
  /** A design's tiles at one layout, with their palette: what every render of the design draws from. */
  readonly arts = new LRUCache<string, DesignArt>({ maxSize: 64 * 1024 * 1024, sizeCalculation: artBytes });
  readonly captions = new LRUCache<string, RawImage>({ maxSize: 16 * 1024 * 1024, sizeCalculation: (image) => bytesOf(image.rgba) });
  readonly verdicts = new LRUCache<string, boolean>({ max: 20_000 });
  #decoder: Promise<void> | undefined;

  /** The in-process decoder, loaded on the first scan check of this thread. */
  decoderReady(): Promise<void> {
    this.#decoder ??= loadDecoder();
    return this.#decoder;
  }
}
