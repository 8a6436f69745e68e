// The image's distinct pixel rows at one bit a pixel (dark = 1), and how often each repeats top to bottom: what PNG and
// WebP both write.
import type { ImageLayout } from './layout.js';
import type { QrMatrix } from './qr-matrix.js';

export interface PackedRows {
  /** Bytes per row, leading bytes included. */
  rowBytes: number;
  /** Distinct rows; index 0 is the light row (all zero). */
  rows: Uint8Array[];
  /** Top to bottom: which row, how many times (never zero). */
  runs: Array<{ row: number; count: number }>;
}

export interface BitOrder {
  /** Bytes before the pixels of each row (PNG's filter byte). */
  leadingBytes: number;
  /** WebP bundles pixels from the lowest bit up; PNG from the highest bit down. */
  lowBitFirst: boolean;
}

/** Sets pixels [from, to) of a row: a partial byte, whole bytes, a partial byte, instead of one bit at a time. */
function fillPixels(row: Uint8Array, from: number, to: number, order: BitOrder): void {
  const base = order.leadingBytes;
  const firstByte = from >> 3;
  const lastByte = (to - 1) >> 3;
  if (firstByte === lastByte) {
    row[base + firstByte]! |= pixelMask(from & 7, ((to - 1) & 7) + 1, order.lowBitFirst);
    return;
  }
  row[base + firstByte]! |= pixelMask(from & 7, 8, order.lowBitFirst);
  row.fill(0xff, base + firstByte + 1, base + lastByte);
  row[base + lastByte]! |= pixelMask(0, ((to - 1) & 7) + 1, order.lowBitFirst);
}

/** Pixels first..end-1 of one byte, as bits in the format's order. */
function pixelMask(first: number, end: number, lowBitFirst: boolean): number {
  const low = ((1 << (end - first)) - 1) << first;
  if (lowBitFirst) return low;
  let reversed = 0;
  for (let i = first; i < end; i++) reversed |= 0x80 >> i;
  return reversed;
}

export function packedRows(matrix: QrMatrix, layout: ImageLayout, order: BitOrder): PackedRows {
  const { side, scale, offset } = layout;
  const rowBytes = order.leadingBytes + ((side + 7) >> 3);
  const rows: Uint8Array[] = [new Uint8Array(rowBytes)];
  const runs: PackedRows['runs'] = [];
  if (offset > 0) runs.push({ row: 0, count: offset });
  const n = matrix.size;
  for (let my = 0; my < n; my++) {
    const row = new Uint8Array(rowBytes);
    // Each run of dark modules is filled at once.
    for (let mx = 0; mx < n;) {
      if (matrix.modules[my * n + mx] === 0) {
        mx++;
        continue;
      }
      const start = mx;
      while (mx < n && matrix.modules[my * n + mx] === 1) mx++;
      fillPixels(row, offset + start * scale, offset + mx * scale, order);
    }
    rows.push(row);
    runs.push({ row: rows.length - 1, count: scale });
  }
  const below = side - offset - n * scale;
  if (below > 0) runs.push({ row: 0, count: below });
  return { rowBytes, rows, runs };
}
