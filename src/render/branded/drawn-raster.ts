// A design's raster drawn on its first use and kept: the scan check and the WebP encoder read the same pixels.
import { designKey, type Branding } from '../../domain/branding.js';
import type { RenderSpec } from '../../domain/render-options.js';
import type { QrMatrix } from '../qr-matrix.js';
import type { DesignCaches } from './design-caches.js';
import type { DesignLayout } from './design-layout.js';
import { rasterDesign, rasterPixels, type Raster } from './design-raster.js';
import { decodesTo, type RgbaImage } from './scan-check.js';

/** Drawn only when something needs the pixels; `release` hands its scanlines back to the caches once they are read. */
export class DrawnRaster {
  #raster: Raster | undefined;
  #image: RgbaImage | undefined;

  constructor(
    readonly spec: RenderSpec,
    readonly branding: Branding,
    readonly matrix: QrMatrix,
    readonly layout: DesignLayout,
    readonly caches: DesignCaches,
    readonly design = designKey(branding),
  ) {}

  /** The pixels as RGBA: what the decoders read, and what sharp encodes as WebP. */
  async image(): Promise<RgbaImage> {
    if (this.#image) return this.#image;
    const raster = await rasterDesign(this.spec, this.branding, this.matrix, this.layout, this.caches, this.design);
    const pixels = rasterPixels(raster);
    this.#raster = raster;
    this.#image = {
      rgba: new Uint8Array(pixels.buffer, pixels.byteOffset, pixels.byteLength),
      width: raster.width,
      height: raster.height,
    };
    return this.#image;
  }

  /** Whether all three decoders read the payload back from these pixels. */
  async readsBack(): Promise<boolean> {
    return decodesTo(this.caches.zbar, await this.image(), this.spec.payload);
  }

  /** Once nothing reads the pixels any more (sharp takes its own copy): their scanlines serve the next render. */
  release(): void {
    if (this.#raster && 'scanlines' in this.#raster) this.caches.recycleScanlines(this.#raster.scanlines);
  }
}
