// Writes a QR matrix as a 1-bit palette PNG: exact colours, a fraction of the bytes of RGBA.
import { crc32, deflateSync } from 'node:zlib';
import { parseColour } from '../domain/render-options.js';
import type { ImageLayout } from './layout.js';
import type { QrMatrix } from './qr-matrix.js';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const FILTER_NONE = 0;
const FILTER_UP = 2;

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.allocUnsafe(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/**
 * Scanlines: a module row is written once with filter None, its repeats with filter Up (all zero
 * bytes), so deflate sees long runs of zeros and the file stays small.
 */
function scanlines(matrix: QrMatrix, layout: ImageLayout): Buffer {
  const { side, scale, offset } = layout;
  const rowBytes = 1 + Math.ceil(side / 8);
  const raw = Buffer.alloc(rowBytes * side); // zero-filled: light rows and Up-filtered repeats need no writes
  for (let y = 0; y < side; y++) raw[y * rowBytes] = FILTER_UP;
  const matrixPixels = matrix.size * scale;
  for (let my = 0; my < matrix.size; my++) {
    const firstY = offset + my * scale;
    const row = firstY * rowBytes;
    raw[row] = FILTER_NONE;
    for (let mx = 0; mx < matrix.size; mx++) {
      if (matrix.modules[my * matrix.size + mx] === 0) continue;
      const startX = offset + mx * scale;
      for (let x = startX; x < startX + scale; x++) raw[row + 1 + (x >> 3)]! |= 0x80 >> (x & 7);
    }
    // The first row after the code returns to light: written plainly, since Up would repeat dark.
    const after = offset + matrixPixels;
    if (my === matrix.size - 1 && after < side) raw[after * rowBytes] = FILTER_NONE;
  }
  // The first image row is written plainly (Up from nothing means zeros, which is light: fine either way).
  raw[0] = FILTER_NONE;
  return raw;
}

export function writePng(matrix: QrMatrix, layout: ImageLayout, darkColor: string, lightColor: string): Buffer {
  const dark = parseColour(darkColor);
  const light = parseColour(lightColor);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(layout.side, 0);
  header.writeUInt32BE(layout.side, 4);
  header[8] = 1; // bit depth
  header[9] = 3; // colour type: palette
  // Palette index 0 is light (the zero-filled background), index 1 is dark.
  const palette = Buffer.from([light.r, light.g, light.b, dark.r, dark.g, dark.b]);
  const parts = [SIGNATURE, chunk('IHDR', header), chunk('PLTE', palette)];
  if (light.a < 255 || dark.a < 255) parts.push(chunk('tRNS', Buffer.from([light.a, dark.a])));
  parts.push(chunk('IDAT', deflateSync(scanlines(matrix, layout), { level: 9 })), chunk('IEND', Buffer.alloc(0)));
  return Buffer.concat(parts);
}
