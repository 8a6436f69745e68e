// Writes a QR matrix as a 1-bit palette PNG: exact colours, a fraction of the bytes of RGBA.
import { crc32, deflateSync } from 'node:zlib';
import { parseColour } from '../domain/render-options.js';
import type { ImageLayout } from './layout.js';
import { packedRows, type PackedRows } from './packed-rows.js';
import type { QrMatrix } from './qr-matrix.js';

/**
 * Chosen by bench/render-path.ts: with the repeated rows filtered Up (below), level 1 costs three quarters of
 * level 3 on unfiltered rows (the writer before) for about the same bytes; 6+ cost twice the time or more.
 * (A hand-written row-aware deflate was measured too: no faster than zlib, and larger.)
 */
export const PNG_DEFLATE_LEVEL = 1;

/** PNG filter types (PNG spec §9.2): None copies the row, Up stores its difference from the row above. */
const FILTER_UP = 2;

/** Each scanline starts with its filter byte (0, None); palette index 0 (light) is the zero background. */
export const PNG_ROWS = { leadingBytes: 1, lowBitFirst: false };

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  out.set(data, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/**
 * Every scanline of the image, unfiltered: each row written out as often as it repeats (bench/render-path.ts's
 * alternative).
 */
export function expandScanlines(plan: PackedRows): Buffer {
  const raw = Buffer.allocUnsafe(imageBytes(plan));
  let y = 0;
  for (const { row, count } of plan.runs) for (let k = 0; k < count; k++) raw.set(plan.rows[row]!, y++ * plan.rowBytes);
  return raw;
}

/**
 * Every scanline, a repeat of the row above filtered Up: its filter byte and then zeros, which deflate reads
 * as one long run. The first row of each run is written unfiltered. Zeroed memory makes the repeats free to write.
 */
export function filteredScanlines(plan: PackedRows): Buffer {
  const raw = Buffer.alloc(imageBytes(plan));
  let y = 0;
  for (const { row, count } of plan.runs) {
    raw.set(plan.rows[row]!, y++ * plan.rowBytes);
    for (let k = 1; k < count; k++) raw[y++ * plan.rowBytes] = FILTER_UP;
  }
  return raw;
}

/** Bytes of every scanline together, filter bytes included. */
function imageBytes(plan: PackedRows): number {
  return plan.runs.reduce((rows, run) => rows + run.count, 0) * plan.rowBytes;
}

/** pHYs (PNG spec §11.3.5.3): the print resolution as pixels per metre, unit 1 (metre). */
export function physChunk(dpi: number): Buffer {
  const data = Buffer.alloc(9);
  const perMetre = Math.round(dpi / 0.0254);
  data.writeUInt32BE(perMetre, 0);
  data.writeUInt32BE(perMetre, 4);
  data[8] = 1;
  return chunk('pHYs', data);
}

/** The PNG file around a finished IDAT (zlib stream of the scanlines); with `dpi`, its pHYs. */
export function pngFile(
  layout: ImageLayout,
  darkColor: string,
  lightColor: string,
  idat: Uint8Array,
  dpi?: number,
): Buffer {
  const dark = parseColour(darkColor);
  const light = parseColour(lightColor);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(layout.side, 0);
  header.writeUInt32BE(layout.side, 4);
  header[8] = 1; // bit depth
  header[9] = 3; // colour type: palette
  // Palette index 0 is light (the zero-filled background), index 1 is dark.
  const palette = Buffer.from([light.r, light.g, light.b, dark.r, dark.g, dark.b]);
  const parts = [PNG_SIGNATURE, chunk('IHDR', header), chunk('PLTE', palette)];
  if (light.a < 255 || dark.a < 255) parts.push(chunk('tRNS', Buffer.from([light.a, dark.a])));
  if (dpi !== undefined) parts.push(physChunk(dpi));
  parts.push(chunk('IDAT', idat), chunk('IEND', new Uint8Array(0)));
  return Buffer.concat(parts);
}

export function writePng(
  matrix: QrMatrix,
  layout: ImageLayout,
  darkColor: string,
  lightColor: string,
  level = PNG_DEFLATE_LEVEL,
  dpi?: number,
): Buffer {
  return pngFile(
    layout,
    darkColor,
    lightColor,
    deflateSync(filteredScanlines(packedRows(matrix, layout, PNG_ROWS)), { level }),
    dpi,
  );
}
