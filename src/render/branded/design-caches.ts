// What a render thread keeps between branded renders: shape tiles, resized logos, caption bands and scan verdicts, all
// bounded.
import { LRUCache } from 'lru-cache';
import type { DesignArt } from './design-raster.js';
import type { ErrorCorrectionLevel } from '../../domain/render-options.js';
import { clearedSquare, logoLeavesSpare } from '../logo-level.js';
import { codewordOfModules } from '../qr-codeword-map.js';
import { loadDecoder, ZbarReader } from './scan-check.js';

export interface RawImage {
  width: number;
  height: number;
  /** Non-premultiplied RGBA, 4 bytes per pixel. */
  rgba: Uint8Array;
}

/**
 * What a thread knows of one design class (shared-verdict.ts: everything the pixels depend on but the data modules):
 * whether its logo leaves every block spare correction (logo-level.ts), the distinct payloads that have read back
 * exactly on both decoders so far, and whether any has failed (then each payload is checked on its own for good).
 */
export interface DesignClass {
  eligible: boolean;
  passed: Set<string>;
  failed: boolean;
}

/** How many images this thread's scan guarantee decoded, and how many it let out on their class's shared verdict. */
export interface ScanCounts {
  decoded: number;
  shared: number;
}

/** Renders in flight on one thread at once rarely exceed this (the inline renderer interleaves at its awaits). */
const SPARE_SCANLINE_BUFFERS = 4;

const bytesOf = (value: { byteLength: number }) => Math.max(1, value.byteLength);
const tileBytes = (tiles: object) =>
  Object.values(tiles).reduce(
    (sum: number, tile: { byteLength: number } | undefined) => sum + (tile?.byteLength ?? 0),
    0,
  );
/**
 * An art's tiles (colours, and palette indices when it has them), and what deflateDesign has kept of it (art.rowCodes).
 */
const artBytes = (art: DesignArt) =>
  Math.max(
    1,
    tileBytes(art.rgba) +
      (art.indexed ? tileBytes(art.indexed.tiles) + art.indexed.palette.byteLength : 0) +
      (art.rowCodes?.kept.bytes ?? 0),
  );

/**
 * One instance per thread (the render thread's entry and the inline renderer each own one), never module
 * state. A cached logo costs one sharp resize per (logo, pixel size); an image costs one pair of decodes per
 * (payload, level, size, colours, design) until its design class shares a verdict (shared-verdict.ts): the verdict
 * caches make a repeated request's scan guarantee, and a new payload's in an established class, a lookup.
 */
export class DesignCaches {
  /** Shape tiles, and logos resized and laid over their background. */
  readonly tiles = new LRUCache<string, Uint32Array>({ maxSize: 48 * 1024 * 1024, sizeCalculation: bytesOf });
  /** A design's tiles at one layout, with their palette: what every render of the design draws from. */
  readonly arts = new LRUCache<string, DesignArt>({ maxSize: 64 * 1024 * 1024, sizeCalculation: artBytes });
  readonly captions = new LRUCache<string, RawImage>({
    maxSize: 16 * 1024 * 1024,
    sizeCalculation: (image) => bytesOf(image.rgba),
  });
  /** Keyed by a 44-character digest of the image's inputs (shared-verdict.ts): bounded in count and so in bytes. */
  readonly verdicts = new LRUCache<string, boolean>({ max: 20_000 });
  /** Design classes by a 44-character digest; a class holds at most SHARED_VERDICT_PASSES payload digests. */
  readonly classes = new LRUCache<string, DesignClass>({ max: 10_000 });
  /**
   * logoLeavesSpare by (symbol side, level, logo scale): asked for up to four levels a render, the same few answers
   * each time.
   */
  readonly #logoRules = new LRUCache<string, boolean>({ max: 4096 });
  /** codewordOfModules by version: 40 tables of at most 62 kB, a constant of the standard worked out once each. */
  readonly #placements = new Map<number, Int16Array>();
  /**
   * Counted, not timed: how a test or a benchmark sees which images were decoded and which went out on a shared
   * verdict.
   */
  readonly scanCounts: ScanCounts = { decoded: 0, shared: 0 };
  #decoder: Promise<void> | undefined;
  /** This thread's zbar scanner, for the scan check's second reader. */
  readonly zbar = new ZbarReader();
  /** Scanline buffers of finished renders: a 512 px raster is 260 kB, costly to allocate and collect every render. */
  readonly #spareScanlines: Uint8Array[] = [];

  /** A zero-filled buffer of `length` bytes for a raster's scanlines: a spare one when there is, else a new one. */
  scanlines(length: number): Uint8Array {
    const spare = this.#spareScanlines.findIndex((buffer) => buffer.length === length);
    if (spare === -1) return new Uint8Array(length);
    const [buffer] = this.#spareScanlines.splice(spare, 1);
    return buffer!.fill(0);
  }

  /**
   * Gives back a raster's scanlines once its image is written (nothing may hold them after): a few are kept, for the
   * sizes last drawn.
   */
  recycleScanlines(buffer: Uint8Array): void {
    if (this.#spareScanlines.length === SPARE_SCANLINE_BUFFERS) this.#spareScanlines.shift();
    this.#spareScanlines.push(buffer);
  }

  /**
   * Counts again what an art holds, once deflateDesign has kept more of it: an entry's size is taken when it is set,
   * and setting the same value again keeps the old size, so it is set anew.
   */
  remeasureArt(art: DesignArt): void {
    if (this.arts.peek(art.key) !== art) return;
    this.arts.delete(art.key);
    this.arts.set(art.key, art);
  }

  /** logoLeavesSpare for a centred logo of `scale`, remembered. */
  logoLeavesSpare(matrixSize: number, level: ErrorCorrectionLevel, scale: number): boolean {
    const key = `${matrixSize}:${level}:${scale}`;
    let holds = this.#logoRules.get(key);
    if (holds === undefined) {
      holds = logoLeavesSpare(
        matrixSize,
        level,
        clearedSquare(matrixSize, scale),
        this.codewordPlacement((matrixSize - 17) / 4),
      );
      this.#logoRules.set(key, holds);
    }
    return holds;
  }

  /** How many versions' codeword placement tables this thread has worked out (each once). */
  get placementTables(): number {
    return this.#placements.size;
  }

  /** codewordOfModules(version), remembered. */
  codewordPlacement(version: number): Int16Array {
    let table = this.#placements.get(version);
    if (!table) this.#placements.set(version, (table = codewordOfModules(version)));
    return table;
  }

  /** The in-process decoder, loaded on the first scan check of this thread. */
  decoderReady(): Promise<void> {
    this.#decoder ??= loadDecoder(this.zbar);
    return this.#decoder;
  }
}
