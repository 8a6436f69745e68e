// Writes a QR matrix as a 1-bit palette PNG: exact colours, a fraction of the bytes of RGBA.
import { crc32, deflateSync } from 'node:zlib';
import { parseColour } from '../domain/render-options.js';
import type { ImageLayout } from './layout.js';
import type { QrMatrix } from './qr-matrix.js';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.allocUnsafe(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/**
 * Scanlines, each with filter byte 0 (None): a module row is drawn once and copied for its other
 * pixel rows. Identical rows one row apart are what deflate's back-references compress best
 * (bench/render-path.ts measured this smaller than Up-filtered zero rows).
 */
function scanlines(matrix: QrMatrix, layout: ImageLayout): Buffer {
  const { side, scale, offset } = layout;
  const rowBytes = 1 + Math.ceil(side / 8);
  const raw = Buffer.alloc(rowBytes * side); // zero-filled: filter None and light pixels need no writes
  for (let my = 0; my < matrix.size; my++) {
    const first = (offset + my * scale) * rowBytes;
    for (let mx = 0; mx < matrix.size; mx++) {
      if (matrix.modules[my * matrix.size + mx] === 0) continue;
      const startX = offset + mx * scale;
      for (let x = startX; x < startX + scale; x++) raw[first + 1 + (x >> 3)]! |= 0x80 >> (x & 7);
    }
    for (let copy = 1; copy < scale; copy++) raw.copyWithin(first + copy * rowBytes, first, first + rowBytes);
  }
  return raw;
}

/** Chosen by bench/render-path.ts: level 3 is as fast as 1 on these scanlines and ~15% smaller; 4+ cost 2x the time. */
export const PNG_DEFLATE_LEVEL = 3;

export function writePng(matrix: QrMatrix, layout: ImageLayout, darkColor: string, lightColor: string, level = PNG_DEFLATE_LEVEL): Buffer {
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
  parts.push(chunk('IDAT', deflateSync(scanlines(matrix, layout), { level })), chunk('IEND', Buffer.alloc(0)));
  return Buffer.concat(parts);
}
