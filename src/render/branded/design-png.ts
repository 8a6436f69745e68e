// Writes a branded design as PNG (8-bit palette when it uses at most 256 colours, truecolour with alpha otherwise):
// deflated from the design, or, as the baseline, from a drawn raster.
import { deflateSync } from 'node:zlib';
import { chunk, physChunk, PNG_SIGNATURE } from '../png-writer.js';
import type { QrMatrix } from '../qr-matrix.js';
import { deflateDesign } from './design-deflate.js';
import type { DesignLayout } from './design-layout.js';
import type { DesignArt, Raster } from './design-raster.js';

/**
 * Level 1, default strategy: branded images are larger than 1-bit ones, and the repeated rows (filter Up,
 * all zero) compress well even at 1; on palette scanlines the default strategy is faster than Z_FILTERED for the
 * same bytes (docs/decisions/design-png-zlib.md).
 */
const DEFLATE_LEVEL = 1;

/**
 * Filter Up where a scanline repeats the one above (every module row repeats up to `scale` times: the
 * row filters to zeros), None elsewhere, in place: the raster says which rows repeat, as it drew them,
 * so no row is compared here (comparing rows by offsets costs a share of every render).
 */
function filterRepeatedRows(scanlines: Uint8Array, stride: number, repeats: Uint8Array): void {
  for (let y = 1; y < repeats.length; y++) {
    if (repeats[y] !== 1) continue;
    const at = y * stride;
    scanlines.fill(0, at + 1, at + stride);
    scanlines[at] = 2; // Up
  }
}

/** RGBA pixels as scanlines (filter byte first), repeated rows filtered Up. */
function rgbaScanlines(pixels: Uint32Array, width: number, height: number, repeats: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(pixels.buffer, pixels.byteOffset, pixels.byteLength);
  const stride = 1 + width * 4;
  const raw = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) raw.set(bytes.subarray(y * width * 4, (y + 1) * width * 4), y * stride + 1);
  filterRepeatedRows(raw, stride, repeats);
  return raw;
}

/** The PNG around a zlib stream of its scanlines (IDAT). */
function pngOf(width: number, height: number, colourType: number, idat: Uint8Array, extra: Buffer[]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per channel (or per palette index)
  header[9] = colourType;
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', header),
    ...extra,
    chunk('IDAT', idat),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

/** PLTE, and tRNS when an entry is not opaque: palette entries are packed RGBA (see pixels.ts). */
function paletteChunks(palette: Uint32Array): Buffer[] {
  const rgb = Buffer.alloc(palette.length * 3);
  const alpha = Buffer.alloc(palette.length);
  palette.forEach((colour, i) => {
    rgb[i * 3] = colour & 0xff;
    rgb[i * 3 + 1] = (colour >>> 8) & 0xff;
    rgb[i * 3 + 2] = (colour >>> 16) & 0xff;
    alpha[i] = colour >>> 24;
  });
  const chunks = [chunk('PLTE', rgb)];
  if (alpha.some((a) => a < 255)) chunks.push(chunk('tRNS', alpha));
  return chunks;
}

/**
 * A drawn raster through zlib level 1, which no render uses: the baseline bench/branded-render.ts (pngWriterBench)
 * and test/unit/design-deflate.test.ts measure writeDeflatedDesignPng against. The palette form is a quarter of the
 * bytes to filter and deflate, and decodes to exactly the pixels of
 * the truecolour form. Filters the raster's scanlines in place: the raster is spent afterwards (write it last).
 */
export function writeDesignPng(raster: Raster, dpi?: number): Buffer {
  const { width, height, repeats } = raster;
  const phys = dpi === undefined ? [] : [physChunk(dpi)];
  if (!('scanlines' in raster))
    return pngOf(
      width,
      height,
      6,
      deflateSync(rgbaScanlines(raster.pixels, width, height, repeats), { level: DEFLATE_LEVEL }),
      phys,
    );
  const { palette, scanlines } = raster;
  filterRepeatedRows(scanlines, width + 1, repeats);
  return pngOf(width, height, 3, deflateSync(scanlines, { level: DEFLATE_LEVEL }), [
    ...paletteChunks(palette),
    ...phys,
  ]);
}

/**
 * The same PNG without a raster: its scanlines deflated from how the design is drawn (design-deflate.ts), in the
 * palette form when the art has one, else RGBA.
 */
export function writeDeflatedDesignPng(
  art: DesignArt,
  matrix: QrMatrix,
  layout: DesignLayout,
  size: number,
  dpi?: number,
): Buffer {
  const phys = dpi === undefined ? [] : [physChunk(dpi)];
  const idat = deflateDesign(art, matrix, layout, size);
  if (!art.indexed) return pngOf(layout.side, layout.height, 6, idat, phys);
  return pngOf(layout.side, layout.height, 3, idat, [...paletteChunks(art.indexed.palette), ...phys]);
}
