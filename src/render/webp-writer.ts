// Writes a QR matrix as lossless WebP through sharp, from a one-pixel-per-module bitmap.
import sharp from 'sharp';
import { parseColour } from '../domain/render-options.js';
import type { ImageLayout } from './layout.js';
import type { QrMatrix } from './qr-matrix.js';

/**
 * sharp gets the matrix at one pixel per module and scales it with nearest-neighbour by a whole
 * factor, so the bitmap handed over is tiny and every module stays exact; the quiet zone and
 * centring slack are added as a solid extension.
 */
/** Chosen by bench/render-path.ts: effort 1 already reaches the smallest output of efforts 1-6 for QR codes, at the least cost. */
export const WEBP_EFFORT = 1;

export async function writeWebp(matrix: QrMatrix, layout: ImageLayout, darkColor: string, lightColor: string, effort = WEBP_EFFORT): Promise<Buffer> {
  const dark = parseColour(darkColor);
  const light = parseColour(lightColor);
  const n = matrix.size;
  const bitmap = Buffer.allocUnsafe(n * n * 4);
  for (let i = 0; i < n * n; i++) {
    const c = matrix.modules[i] === 1 ? dark : light;
    bitmap[i * 4] = c.r;
    bitmap[i * 4 + 1] = c.g;
    bitmap[i * 4 + 2] = c.b;
    bitmap[i * 4 + 3] = c.a;
  }
  const scaled = n * layout.scale;
  const before = layout.offset;
  const after = layout.side - before - scaled;
  const background = { r: light.r, g: light.g, b: light.b, alpha: light.a / 255 };
  return sharp(bitmap, { raw: { width: n, height: n, channels: 4 } })
    .resize(scaled, scaled, { kernel: 'nearest' })
    .extend({ top: before, left: before, bottom: after, right: after, background })
    .webp({ lossless: true, effort })
    .toBuffer();
}
