// Every branded image decodes: a pairwise corpus of shape × finder × logo scale × error correction × format × colours,
// read by zbar and ZXing.
import { describe, expect, it } from 'vitest';
import { generate, useTestApp } from '../helpers/app.js';
import { decodeQr, readByAll } from '../helpers/decode.js';
import { useCallerWithLogo } from '../helpers/logos.js';
import { pairwise } from '../helpers/pairwise.js';

const t = useTestApp();
const caller = useCallerWithLogo(t, 'business');

const PALETTES = {
  mono: { darkColor: '#000000', lightColor: '#FFFFFF', finderColor: '#000000' },
  brand: { darkColor: '#1D3557', lightColor: '#FFF8E7', finderColor: '#C1121F' },
} as const;

const CORPUS = pairwise({
  moduleShape: ['square', 'rounded', 'dots'],
  finderShape: ['square', 'rounded', 'circle'],
  logoScale: [0, 0.12, 0.25],
  errorCorrection: ['L', 'M', 'Q', 'H'],
  outputFormat: ['png', 'webp', 'svg'],
  palette: ['mono', 'brand'],
} as const);

describe('branded codes, pairwise corpus', () => {
  it('covers every pair of values of every two dimensions', () => {
    const pairs = new Set(
      CORPUS.flatMap((row) =>
        Object.entries(row).flatMap(([a, va], i, all) => all.slice(i + 1).map(([b, vb]) => `${a}=${va}&${b}=${vb}`)),
      ),
    );
    // 3·3 + 3·3 + 3·4 + 3·3 + 3·2 (moduleShape) + 3·3 + 3·4 + 3·3 + 3·2 (finderShape) + 3·4 + 3·3 + 3·2 (logo) + 4·3 +
    // 4·2 + 3·2
    expect(pairs.size).toBe(9 + 9 + 12 + 9 + 6 + 9 + 12 + 9 + 6 + 12 + 9 + 6 + 12 + 8 + 6);
  });

  CORPUS.forEach((row, index) => {
    const name =
      `${row.moduleShape} modules, ${row.finderShape} finders, logo ${row.logoScale || 'none'}, ECC ` +
      `${row.errorCorrection}, ${row.outputFormat}, ${row.palette}`;
    it(`${name}: a 200 decodes to the exact payload; a refusal names the largest logo that fits`, async () => {
      const content = `https://example.com/branded/${index}?q=${'x'.repeat(index * 7)}`;
      const res = await generate(t.app, caller.key, {
        content,
        type: 'url',
        outputFormat: row.outputFormat,
        errorCorrection: row.errorCorrection,
        moduleShape: row.moduleShape,
        finderShape: row.finderShape,
        ...PALETTES[row.palette],
        ...(row.logoScale ? { logo: { id: caller.logoId, scale: row.logoScale } } : {}),
        frame: index % 2 === 0 ? { text: 'SCAN ME' } : undefined,
      });
      if (res.statusCode === 422) {
        // Only a logo can be refused, when the caller fixed an error correction too low for it.
        expect(row.logoScale).toBeGreaterThan(0);
        expect(res.json()).toMatchObject({ code: 'unscannable_design', changes: expect.any(Array) });
        return;
      }
      expect(res.statusCode).toBe(200);
      expect(await decodeQr(res.rawPayload, row.outputFormat)).toEqual(readByAll(content));
    });
  });
});
