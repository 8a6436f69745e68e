// Our 1-bit PNG writer stores a row that repeats the one above as filter Up (zeros), and libpng decodes it to the same
// pixels as the rows written out.
import { deflateSync, inflateSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { layoutFor } from '../../src/render/layout.js';
import { packedRows } from '../../src/render/packed-rows.js';
import { expandScanlines, PNG_DEFLATE_LEVEL, PNG_ROWS, pngFile, writePng } from '../../src/render/png-writer.js';
import { buildMatrix } from '../../src/render/qr-matrix.js';

const CASES = [
  { payload: 'https://example.com/menu?table=12', size: 512, margin: 4 },
  { payload: 'hello', size: 97, margin: 0 },
  { payload: `https://example.com/${'x'.repeat(200)}`, size: 2048, margin: 16 },
];
const DARK = '#102030ff';
const LIGHT = '#f0e0d080';

/** The zlib stream of every IDAT chunk, inflated: one filter byte, then the row's bytes, for every row. */
function scanlines(png: Buffer): Buffer {
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  return inflateSync(Buffer.concat(idat));
}

describe('writePng', () => {
  for (const { payload, size, margin } of CASES) {
    const matrix = buildMatrix(payload, 'M');
    const layout = layoutFor(matrix, size, margin);
    const rowBytes = 1 + Math.ceil(size / 8);
    const png = writePng(matrix, layout, DARK, LIGHT);
    const unfilteredRows = expandScanlines(packedRows(matrix, layout, PNG_ROWS));
    const unfiltered = pngFile(layout, DARK, LIGHT, deflateSync(unfilteredRows, { level: PNG_DEFLATE_LEVEL }));

    it(
      `stores each row that repeats the one above as filter ` + `Up and zeros, every other row unfiltered (${size} px)`,
      () => {
        const rows = scanlines(png);
        expect(rows.length).toBe(size * rowBytes);
        let repeats = 0;
        for (let y = 0; y < size; y++) {
          const row = rows.subarray(y * rowBytes, (y + 1) * rowBytes);
          const pixels = unfilteredRows.subarray(y * rowBytes + 1, (y + 1) * rowBytes);
          const above = y > 0 ? unfilteredRows.subarray((y - 1) * rowBytes + 1, y * rowBytes) : undefined;
          if (above?.equals(pixels)) {
            repeats++;
            expect(row[0], `row ${y}`).toBe(2);
            expect(
              row.subarray(1).every((b) => b === 0),
              `row ${y}`,
            ).toBe(true);
          } else {
            expect(row[0], `row ${y}`).toBe(0);
            expect(row.subarray(1).equals(pixels), `row ${y}`).toBe(true);
          }
        }
        // Modules are several pixels high: most rows repeat.
        expect(repeats).toBeGreaterThan(size / 2);
      },
    );

    it(
      `decodes with libpng to exactly the pixels of the rows written out, in fewer bytes than those rows at the ` +
        `same deflate level (${size} px)`,
      async () => {
        const ours = await sharp(png).ensureAlpha().raw().toBuffer();
        const plain = await sharp(unfiltered).ensureAlpha().raw().toBuffer();
        expect(ours.equals(plain)).toBe(true);
        expect(png.length).toBeLessThan(unfiltered.length);
      },
    );
  }
});
