// Writes a branded raster as PNG: 8-bit palette when the design uses at most 256 colours, truecolour with alpha otherwise.
import { constants, deflateSync } from 'node:zlib';
import { chunk, PNG_SIGNATURE } from '../png-writer.js';
import type { Raster } from './design-raster.js';

/** Level 1: branded images are larger than 1-bit ones, and the repeated rows (filter Up, all zero) compress well even at 1. */
const DEFLATE_LEVEL = 1;

/**
 * Scanlines with filter Up where a row repeats the one above (every module row repeats `scale` times:
 * the row filters to zeros) and filter None elsewhere.
 */
function scanlines(bytes: Uint8Array, rowLength: number, height: number): Buffer {
  const raw = Buffer.alloc((1 + rowLength) * height);
  for (let y = 0; y < height; y++) {
    const at = y * (1 + rowLength);
    const row = bytes.subarray(y * rowLength, (y + 1) * rowLength);
    if (y > 0 && Buffer.compare(row, bytes.subarray((y - 1) * rowLength, y * rowLength)) === 0) {
      raw[at] = 2; // Up: the rest of the row stays zero
      continue;
    }
    raw.set(row, at + 1);
  }
  return raw;
}

function pngOf(width: number, height: number, colourType: number, raw: Buffer, extra: Buffer[]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per channel (or per palette index)
  header[9] = colourType;
  const idat = deflateSync(raw, { level: DEFLATE_LEVEL, strategy: constants.Z_FILTERED });
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', header), ...extra, chunk('IDAT', idat), chunk('IEND', new Uint8Array(0))]);
}

/**
 * The palette form is a quarter of the bytes to filter and deflate, and decodes to exactly the pixels of
 * the truecolour form. Palette entries are packed RGBA (see pixels.ts); tRNS only when one is not opaque.
 */
export function writeDesignPng(raster: Raster): Buffer {
  const { width, height } = raster;
  if (!('indices' in raster))
    return pngOf(width, height, 6, scanlines(new Uint8Array(raster.pixels.buffer, raster.pixels.byteOffset, raster.pixels.byteLength), width * 4, height), []);
  const { palette } = raster;
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
  return pngOf(width, height, 3, scanlines(raster.indices, width, height), chunks);
}
