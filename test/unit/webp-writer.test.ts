// Our VP8L writer against libwebp's dwebp: every image of a random corpus decodes to exactly our PNG's pixels (and the
// matrix's), and scans.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layoutFor } from '../../src/render/layout.js';
import { writePng } from '../../src/render/png-writer.js';
import { buildMatrix } from '../../src/render/qr-matrix.js';
import { writeWebp } from '../../src/render/webp-writer.js';
import type { ErrorCorrectionLevel } from '../../src/domain/render-options.js';
import { decodeQr, readByAll } from '../helpers/decode.js';

const run = promisify(execFile);

/** Deterministic corpus: a failure names its case, and the same case comes back on the next run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

interface Case {
  payload: string;
  size: number;
  margin: number;
  errorCorrection: ErrorCorrectionLevel;
  dark: string;
  light: string;
}

const hex = (next: () => number) =>
  Math.floor(next() * 256)
    .toString(16)
    .padStart(2, '0');
const PAYLOADS = ['https://example.com/menu?table=12', 'hello', 'WIFI:T:WPA;S:café;P:p4ss\\;word;;', 'ação ✓ 日本語'];

function corpus(count: number): Case[] {
  const next = random(13);
  const cases: Case[] = [];
  for (let i = 0; i < count; i++) {
    const payload =
      i < PAYLOADS.length ? PAYLOADS[i]! : `https://example.com/${i}/${'x'.repeat(Math.floor(next() * 300))}`;
    const margin = Math.floor(next() * 17);
    const errorCorrection = (['L', 'M', 'Q', 'H'] as const)[Math.floor(next() * 4)]!;
    // Raster images need at least 2 pixels a module; sizes lean small, as requests do, up to the 2048 maximum.
    const minimum = Math.max(64, (buildMatrix(payload, errorCorrection).size + 2 * margin) * 2);
    const size = Math.min(2048, minimum + Math.floor(next() ** 3 * (2049 - minimum)));
    // Dark stays dark and light stays light so the codes scan; alpha anywhere from see-through to opaque.
    const dark =
      `#${hex(() => next() * 0.3)}${hex(() => next() * 0.3)}${hex(() => next() * 0.3)}` +
      `${i % 3 === 0 ? 'ff' : hex(() => 0.6 + next() * 0.4)}`;
    const light =
      `#${hex(() => 0.85 + next() * 0.15)}${hex(() => 0.85 + next() * 0.15)}${hex(() => 0.85 + next() * 0.15)}` +
      `${i % 2 === 0 ? 'ff' : hex(next)}`;
    cases.push({ payload, size, margin, errorCorrection, dark, light });
  }
  return cases;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'qrm-webp-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

/** dwebp's PAM output: a text header, then RGBA rows. */
async function dwebpPixels(webp: Uint8Array): Promise<{ width: number; height: number; rgba: Buffer }> {
  const source = join(dir, 'image.webp');
  const pam = join(dir, 'image.pam');
  await writeFile(source, webp);
  await run('dwebp', ['-quiet', source, '-pam', '-o', pam]);
  const file = await readFile(pam);
  const end = file.indexOf('ENDHDR\n') + 'ENDHDR\n'.length;
  const header = file.subarray(0, end).toString('latin1');
  const field = (name: string) => Number(new RegExp(`${name} (\\d+)`).exec(header)?.[1]);
  expect(field('DEPTH')).toBe(4);
  return { width: field('WIDTH'), height: field('HEIGHT'), rgba: file.subarray(end) };
}

/** The image drawn straight from the matrix, pixel by pixel, sharing no code with the writers. */
function expectedPixels(c: Case): Buffer {
  const matrix = buildMatrix(c.payload, c.errorCorrection);
  const { scale, offset } = layoutFor(matrix, c.size, c.margin);
  const colour = (hexColour: string) => [1, 3, 5, 7].map((i) => parseInt(hexColour.slice(i, i + 2), 16));
  const [dark, light] = [colour(c.dark), colour(c.light)];
  const out = Buffer.alloc(c.size * c.size * 4);
  const rowBytes = c.size * 4;
  for (let y = 0; y < c.size; y++) {
    // Pixel rows within one module row are equal: copy the row above instead of drawing it again.
    if (
      y > 0 &&
      Math.floor((y - offset) / scale) === Math.floor((y - 1 - offset) / scale) &&
      y - 1 >= offset &&
      y < offset + matrix.size * scale
    ) {
      out.copy(out, y * rowBytes, (y - 1) * rowBytes, y * rowBytes);
      continue;
    }
    for (let x = 0; x < c.size; x++) {
      const mx = Math.floor((x - offset) / scale);
      const my = Math.floor((y - offset) / scale);
      const inside = x >= offset && y >= offset && mx < matrix.size && my < matrix.size;
      out.set(inside && matrix.modules[my * matrix.size + mx] === 1 ? dark! : light!, (y * c.size + x) * 4);
    }
  }
  return out;
}

function images(c: Case) {
  const matrix = buildMatrix(c.payload, c.errorCorrection);
  const layout = layoutFor(matrix, c.size, c.margin);
  return { png: writePng(matrix, layout, c.dark, c.light), webp: writeWebp(matrix, layout, c.dark, c.light) };
}

describe('writeWebp', () => {
  const cases = corpus(40);

  it(
    'decodes with libwebp to exactly the pixels of our ' + 'PNG of the same code, for every case of the corpus',
    async () => {
      for (const c of cases) {
        const { png, webp } = images(c);
        const decoded = await dwebpPixels(webp);
        const expected = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
        const label = JSON.stringify(c);
        expect([decoded.width, decoded.height], label).toEqual([c.size, c.size]);
        expect([expected.info.width, expected.info.channels], label).toEqual([c.size, 4]);
        expect(decoded.rgba.equals(expected.data), label).toBe(true);
        expect(decoded.rgba.equals(expectedPixels(c)), label).toBe(true);
      }
    },
  );

  it('decodes with zbar and ZXing to the payload', async () => {
    for (const c of cases.filter((_, i) => i % 3 === 0)) {
      expect(await decodeQr(images(c).webp, 'webp'), JSON.stringify(c)).toEqual(readByAll(c.payload));
    }
  });

  it('is never larger than our PNG of the same code', () => {
    for (const c of cases) {
      const { png, webp } = images(c);
      expect(webp.length, JSON.stringify(c)).toBeLessThanOrEqual(png.length);
    }
  });

  it('is at most 0.8 times our PNG for a typical code (a short URL at the default 512 px)', () => {
    const { png, webp } = images({
      payload: 'https://example.com/menu?table=12',
      size: 512,
      margin: 4,
      errorCorrection: 'M',
      dark: '#000000ff',
      light: '#ffffffff',
    });
    expect(webp.length).toBeLessThanOrEqual(0.8 * png.length);
  });
});
