// The branded raster's repeated rows: marked from how each row is drawn, so the PNG writer filters them Up without
// comparing.
import { describe, expect, it } from 'vitest';
import { FINDER_SHAPES, MODULE_SHAPES, type Branding } from '../../src/domain/branding.js';
import { DesignCaches } from '../../src/render/branded/design-caches.js';
import { alignmentCentres, designLayout } from '../../src/render/branded/design-layout.js';
import { rasterDesign, rasterPixels } from '../../src/render/branded/design-raster.js';
import { packCanonical } from '../../src/render/branded/pixels.js';
import { matrixForDesign, renderDesign } from '../../src/render/branded/render-design.js';
import { brandedPngSpec, markLogo } from '../helpers/branded-specs.js';
import { decodeQr, readByAll } from '../helpers/decode.js';

/**
 * Rows marked repeated that differ from the row above (must be none), and rows equal to the row above left unmarked.
 */
async function repeatsAgainstPixels(branding: Branding, size: number, margin: number, caches: DesignCaches) {
  const spec = brandedPngSpec(`https://example.com/rows/${size}/${margin}`, size, margin, branding);
  const { matrix } = matrixForDesign(spec, branding);
  const raster = await rasterDesign(spec, branding, matrix, designLayout(matrix, size, margin, branding), caches);
  const pixels = rasterPixels(raster);
  const row = (y: number) => Buffer.from(pixels.buffer, pixels.byteOffset + y * raster.width * 4, raster.width * 4);
  let wrong = 0;
  let equal = 0;
  let missed = 0;
  for (let y = 1; y < raster.height; y++) {
    const same = row(y).equals(row(y - 1));
    if (same) equal++;
    if (raster.repeats[y] === 1 && !same) wrong++;
    if (raster.repeats[y] !== 1 && same) missed++;
  }
  return { wrong, equal, missed, firstMarked: raster.repeats[0] };
}

describe('branded raster repeated rows', () => {
  it(
    'marks only rows drawn exactly as the row above, for every shape, finder, logo and caption band, and misses ' +
      'few of them',
    async () => {
      const logo = await markLogo();
      const caches = new DesignCaches();
      let equal = 0;
      let missed = 0;
      for (const moduleShape of MODULE_SHAPES)
        for (const finderShape of FINDER_SHAPES)
          for (const [withLogo, frame] of [
            [false, undefined],
            [true, undefined],
            [true, { text: 'SCAN ME', color: '#1d3557ff' }],
          ] as const)
            for (const [size, margin] of [
              [300, 4],
              [512, 0],
            ] as const) {
              const branding: Branding = {
                moduleShape,
                finderShape,
                finderColor: '#c1121fff',
                logo: withLogo ? logo : undefined,
                frame,
                errorCorrectionFixed: false,
              };
              const rows = await repeatsAgainstPixels(branding, size, margin, caches);
              expect(rows.wrong, `${moduleShape}/${finderShape}/${withLogo}/${frame !== undefined} at ${size} px`).toBe(
                0,
              );
              expect(rows.firstMarked).toBe(0);
              equal += rows.equal;
              missed += rows.missed;
            }
      // Misses cost compression only (a logo's edge row, a dot band's blank edge at margin 0): they stay rare.
      expect(equal).toBeGreaterThan(5000);
      expect(missed / equal).toBeLessThan(0.02);
    },
  );

  it(
    'draws alignment patterns as whole squares of exactly the dark and the light colour, at every module size ' +
      'and shape',
    async () => {
      const caches = new DesignCaches();
      const [dark, light] = [packCanonical('#1d3557ff'), packCanonical('#fff8e7ff')];
      for (const moduleShape of ['rounded', 'dots'] as const)
        for (const scale of [2, 3, 4, 5, 8]) {
          const branding: Branding = {
            moduleShape,
            finderShape: 'square',
            finderColor: '#1d3557ff',
            errorCorrectionFixed: true,
          };
          const spec = {
            payload: 'https://example.com/alignment',
            format: 'png',
            size: 0,
            margin: 4,
            errorCorrection: 'Q',
            darkColor: '#1d3557ff',
            lightColor: '#fff8e7ff',
          } as const;
          const { matrix } = matrixForDesign(spec, branding);
          const size = (matrix.size + 8) * scale;
          const layout = designLayout(matrix, size, 4, branding);
          const pixels = rasterPixels(await rasterDesign({ ...spec, size }, branding, matrix, layout, caches));
          const [cx, cy] = alignmentCentres(matrix.size)[0]!;
          const wrong: string[] = [];
          for (let my = cy - 2; my <= cy + 2; my++)
            for (let mx = cx - 2; mx <= cx + 2; mx++) {
              const want = matrix.modules[my * matrix.size + mx] ? dark : light;
              for (let y = 0; y < scale; y++)
                for (let x = 0; x < scale; x++)
                  if (pixels[(layout.offset + my * scale + y) * size + layout.offset + mx * scale + x] !== want)
                    wrong.push(`${moduleShape} ${scale} px (${mx}, ${my})`);
            }
          expect(wrong.slice(0, 3)).toEqual([]);
        }
    },
  );

  it(
    'draws on a recycled scanline buffer exactly as on a ' + 'fresh one (the last render left no pixels behind)',
    async () => {
      const logo = await markLogo();
      const branding: Branding = {
        moduleShape: 'dots',
        finderShape: 'circle',
        finderColor: '#c1121fff',
        logo,
        errorCorrectionFixed: false,
      };
      const spec = (payload: string) =>
        ({
          payload,
          format: 'png',
          size: 320,
          margin: 4,
          errorCorrection: 'M',
          darkColor: '#000000ff',
          lightColor: '#ffffffff',
        }) as const;
      const shared = new DesignCaches();
      const first = await renderDesign(spec('https://example.com/recycled/AAAAAAAAAAAAAAAA'), branding, shared);
      const second = await renderDesign(spec('https://example.com/recycled/b'), branding, shared); // same size: drawn on the first one's buffer
      const fresh = await renderDesign(spec('https://example.com/recycled/b'), branding, new DesignCaches());
      expect(Buffer.from(first).equals(Buffer.from(fresh))).toBe(false);
      expect(Buffer.from(second).equals(Buffer.from(fresh))).toBe(true);
      expect(await decodeQr(Buffer.from(second), 'png')).toEqual(readByAll('https://example.com/recycled/b'));
    },
  );
});
