// Branded batch items: drawn with their design (logo, shapes, finder colour, frame), read by all three readers; foreign
// or unknown logos refused up front with the item's index; CSV columns for the same options.
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { acceptedBatchId, getAs, postBatch, waitForBatch, withArchive } from '../helpers/batches.js';
import { decodePngFiles, READERS } from '../helpers/decode.js';
import { logoPng, uploadLogo } from '../helpers/logos.js';

const t = useTestApp({ env: { RENDER_THREADS: '2' } });

async function newLogo(key: string): Promise<string> {
  const res = await uploadLogo(t.app, key, await logoPng(), 'image/png');
  expect(res.statusCode, res.body).toBe(201);
  return (JSON.parse(res.body) as { id: string }).id;
}

/** Distinct colours in an image: a plain code has two, a branded one (logo, finder colour) many more. */
async function colours(path: string): Promise<number> {
  const { data } = await sharp(path).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const seen = new Set<number>();
  for (let i = 0; i < data.length; i += 4) seen.add(data.readUInt32BE(i));
  return seen.size;
}

describe('branded batch items', () => {
  it(
    'are drawn with their logo, shapes, finder colour and frame, and every file reads exactly on ZXing, zbar and ' +
      'jsQR',
    async () => {
      const { key } = await t.newCaller('pro');
      const logo = await newLogo(key);
      const designs = [
        { logo: { id: logo, scale: 0.2 }, errorCorrection: 'H' },
        { moduleShape: 'rounded', finderShape: 'rounded', finderColor: '#1d3557' },
        { moduleShape: 'dots', logo: { id: logo, scale: 0.15 } },
        { frame: { text: 'SCAN ME' }, finderColor: '#7b2cbf' },
      ];
      const items = Array.from({ length: 12 }, (_, i) => ({
        content: `https://example.com/branded-batch/${i}`,
        type: 'url',
        outputFormat: 'png',
        size: 400,
        ...designs[i % 4],
      }));
      const done = await waitForBatch(getAs(t.app, key), acceptedBatchId(await postBatch(t.app, key, { items })));
      await withArchive(getAs(t.app, key), done.id, async ({ dir, rows }) => {
        expect(rows.map((row) => [row[0], row[3], row[4]])).toEqual(items.map((_, i) => [String(i), 'succeeded', '']));
        const paths = rows.map((row) => join(dir, row[2]!));
        // Every file is branded: more than the two colours of a plain black-and-white code.
        for (const path of paths) expect(await colours(path)).toBeGreaterThan(2);
        const decoded = await decodePngFiles(paths);
        const misread = rows.flatMap((row, i) =>
          READERS.every((r) => decoded[i]![r] === items[Number(row[0])]!.content)
            ? []
            : [{ item: items[Number(row[0])], ...decoded[i] }],
        );
        expect(misread).toEqual([]);
      });
    },
  );

  it("refuses the whole batch up front, naming each item, when a logo id is unknown or another account's", async () => {
    const { key } = await t.newCaller('pro');
    const other = await t.newCaller('pro');
    const theirs = await newLogo(other.key);
    const mine = await newLogo(key);
    const items = [
      { content: 'https://example.com/a', type: 'url', outputFormat: 'png', logo: { id: mine } },
      { content: 'https://example.com/b', type: 'url', outputFormat: 'png', logo: { id: theirs } },
      { content: 'https://example.com/c', type: 'url', outputFormat: 'png', logo: { id: 'lg_doesnotexist' } },
    ];
    const res = await postBatch(t.app, key, { items });
    expect(res.statusCode, res.body).toBe(400);
    const problem = JSON.parse(res.body) as { code: string; errors: Array<{ field: string }> };
    expect(problem.code).toBe('invalid_request');
    expect(problem.errors.map((e) => e.field)).toEqual(['items.1.logo.id', 'items.2.logo.id']);
  });

  it(
    'takes the branding options as CSV columns (logo.id, logo.scale, moduleShape, finderShape, finderColor, ' +
      'frame.text, eci)',
    async () => {
      const { key } = await t.newCaller('pro');
      const logo = await newLogo(key);
      const csv = [
        'content,type,outputFormat,size,errorCorrection,moduleShape,finderShape,finderColor,logo.id,logo.scale,fr' +
          'ame.text,eci',
        `https://example.com/csv/0,url,png,400,H,rounded,rounded,#1d3557,${logo},0.2,,`,
        `Olá São Paulo,text,png,400,,square,square,,,,SCAN ME,true`,
      ].join('\n');
      const res = await postBatch(t.app, key, csv, { 'content-type': 'text/csv' });
      const done = await waitForBatch(getAs(t.app, key), acceptedBatchId(res));
      expect(done).toMatchObject({ succeeded: 2, failed: 0 });
      await withArchive(getAs(t.app, key), done.id, async ({ dir, rows }) => {
        const paths = rows.map((row) => join(dir, row[2]!));
        for (const path of paths) expect(await colours(path)).toBeGreaterThan(2);
        const decoded = await decodePngFiles(paths);
        expect(decoded.map((d) => d.jsqr)).toEqual(['https://example.com/csv/0', 'Olá São Paulo']);
        expect(decoded.map((d) => d.zbar)).toEqual(['https://example.com/csv/0', 'Olá São Paulo']);
        expect(decoded.map((d) => d.zxing)).toEqual(['https://example.com/csv/0', 'Olá São Paulo']);
      });
    },
  );
});
