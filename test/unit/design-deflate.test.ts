// The branded PNG written from how a design is drawn (design-deflate.ts): zlib reads its stream back, and libspng (via
// sharp) its pixels as the raster draws them.
import { inflateSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { FINDER_SHAPES, MODULE_SHAPES, type Branding } from '../../src/domain/branding.js';
import { DesignCaches } from '../../src/render/branded/design-caches.js';
import { designLayout, type DesignLayout } from '../../src/render/branded/design-layout.js';
import { writeDeflatedDesignPng, writeDesignPng } from '../../src/render/branded/design-png.js';
import { designArt, rasterDesign, rasterPixels } from '../../src/render/branded/design-raster.js';
import { matrixForDesign, renderDesign } from '../../src/render/branded/render-design.js';
import { DeflateTokens, type DeflateCode } from '../../src/render/deflate/deflate-tokens.js';
import { designKey } from '../../src/domain/branding.js';
import { brandedPngSpec, markLogo, redFinders } from '../helpers/branded-specs.js';
import { decodeQr, readByAll } from '../helpers/decode.js';

/**
 * A pseudo-random stream made of literals and copies (some past 258 bytes, some overlapping), with the bytes they stand
 * for.
 */
function randomStream(
  seed: number,
  length: number,
  code?: DeflateCode,
): { bytes: Buffer; stream: Uint8Array; tokens: DeflateTokens } {
  let state = seed;
  const next = (n: number) => ((state = (state * 1103515245 + 12345) & 0x7fffffff), state % n);
  const tokens = new DeflateTokens(16);
  const bytes: number[] = [];
  const alphabet = next(4) === 0 ? 2 : 1 + next(256);
  while (bytes.length < length) {
    if (bytes.length >= 3 && next(3) === 0) {
      const distance = 1 + next(Math.min(bytes.length, 32768));
      const copied = 3 + next(next(4) === 0 ? 1200 : 30);
      for (let i = 0; i < copied; i++) bytes.push(bytes[bytes.length - distance]!);
      tokens.copy(copied, distance);
    } else {
      const byte = next(alphabet);
      bytes.push(byte);
      tokens.literal(byte);
    }
  }
  // The checksum in two runs, as a caller adds rows.
  const half = Math.floor(bytes.length / 2);
  for (const run of [bytes.slice(0, half), bytes.slice(half)]) {
    let sum = 0;
    let weighted = 0;
    run.forEach((byte, i) => {
      sum += byte;
      weighted += (run.length - i) * byte;
    });
    tokens.addSums(sum, weighted, run.length);
  }
  return { bytes: Buffer.from(bytes), stream: tokens.finish(code), tokens };
}

const PAYLOAD = 'https://example.com/deflated/design';

async function bothWays(
  branding: Branding,
  size: number,
  margin: number,
  caches: DesignCaches,
  adjust?: (layout: DesignLayout) => DesignLayout,
  payload = PAYLOAD,
) {
  const spec = brandedPngSpec(payload, size, margin, branding);
  const { matrix } = matrixForDesign(spec, branding, caches);
  const drawnLayout = designLayout(matrix, size, margin, branding);
  const layout = adjust ? adjust(drawnLayout) : drawnLayout;
  const design = designKey(branding);
  const art = await designArt(spec, branding, design, layout, caches);
  const raster = await rasterDesign(spec, branding, matrix, layout, caches, design);
  const pixels = rasterPixels(raster);
  const zlibPng = writeDesignPng(raster);
  const png = writeDeflatedDesignPng(art, matrix, layout, size);
  const { data } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  // zlib as well, which checks the stream's Adler-32: each scanline a filter byte and a row of indices or RGBA.
  const idat = png.indexOf('IDAT');
  const scanlines = inflateSync(png.subarray(idat + 4, idat + 4 + png.readUInt32BE(idat - 4)));
  const rowBytes = art.indexed ? layout.side : layout.side * 4;
  const same =
    Buffer.from(data).equals(Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength)) &&
    scanlines.length === layout.height * (rowBytes + 1);
  return { deflatable: true as const, same, png, zlibPng };
}

describe('deflate tokens', () => {
  it(
    'make zlib streams that zlib inflates to the bytes they stand for, checksum included, under their own code ' +
      'and under one kept from another stream',
    () => {
      let code: DeflateCode | undefined;
      for (let seed = 1; seed <= 60; seed++) {
        const { bytes, stream, tokens } = randomStream(
          seed,
          1 + ((seed * 977) % 40000),
          seed % 2 === 0 ? code : undefined,
        );
        expect(Buffer.from(inflateSync(stream)).equals(bytes)).toBe(true);
        code = tokens.code;
      }
    },
  );
});

describe('branded PNG deflated from the design', () => {
  it(
    'decodes to exactly the drawn pixels for every module shape, finder, logo and caption band, the second ' +
      "payload under the first one's code",
    async () => {
      const logo = await markLogo();
      const caches = new DesignCaches();
      const mismatched: string[] = [];
      const colourTypes = new Set<number>();
      let written = 0;
      for (const moduleShape of MODULE_SHAPES)
        for (const finderShape of FINDER_SHAPES)
          for (const withLogo of [false, true])
            for (const frame of [undefined, { text: 'SCAN ME', color: '#1d3557ff' }])
              for (const [size, margin] of [
                [512, 4],
                [150, 0],
              ] as const)
                for (const payload of [PAYLOAD, `${PAYLOAD}/second`]) {
                  const branding: Branding = {
                    moduleShape,
                    finderShape,
                    finderColor: '#c1121fff',
                    errorCorrectionFixed: false,
                    logo: withLogo ? logo : undefined,
                    frame,
                  };
                  const result = await bothWays(branding, size, margin, caches, undefined, payload);
                  if (!result.deflatable) continue;
                  written++;
                  colourTypes.add(result.png[25]!);
                  if (!result.same)
                    mismatched.push(
                      `${moduleShape}/${finderShape}/logo ${withLogo}/frame ${frame !== undefined}/${size}/` +
                        `${margin}/${payload}`,
                    );
                }
      expect(mismatched).toEqual([]);
      expect(written).toBe(144);
      // palette, and RGBA (a caption band with a logo: past 256 colours)
      expect([...colourTypes].sort()).toEqual([3, 6]);
    },
  );

  it('draws modules and finders cut by the logo where a layout puts it over them, pixel for pixel', async () => {
    const branding = redFinders('rounded', 'rounded', await markLogo());
    const caches = new DesignCaches();
    // No cleared square (modules run under the logo), and the logo moved over the top-left finder: cuts through both.
    const uncleared = await bothWays(branding, 400, 4, caches, (layout) => ({
      ...layout,
      cleared: { start: 0, side: 0 },
    }));
    const overFinder = await bothWays(branding, 400, 4, caches, (layout) => ({
      ...layout,
      cleared: { start: 0, side: 0 },
      logoBox: {
        ...layout.logoBox,
        left: layout.offset + 3 * layout.scale + 1,
        top: layout.offset + 2 * layout.scale + 1,
      },
    }));
    expect(uncleared).toMatchObject({ deflatable: true, same: true });
    expect(overFinder).toMatchObject({ deflatable: true, same: true });
  });

  it(
    'writes modules 2 px wide (the narrowest a render draws) pixel for pixel, too short for a copy of the module ' +
      'before',
    async () => {
      const branding = redFinders('rounded', 'rounded');
      const result = await bothWays(branding, 72, 4, new DesignCaches(), undefined, 'https://ex.am/2'); // 33 modules in 72 px: 2 px each
      expect(result).toMatchObject({ deflatable: true, same: true });
    },
  );

  it(
    'reads on ZXing, zbar and jsQR, palette and RGBA, and ' + 'is no larger than zlib level 1 makes the same image',
    async () => {
      const branding = redFinders('rounded', 'rounded', await markLogo());
      for (const design of [branding, { ...branding, frame: { text: 'SCAN ME', color: '#1d3557ff' } }]) {
        const result = await bothWays(design, 512, 4, new DesignCaches());
        expect(result).toMatchObject({ deflatable: true, same: true });
        if (!result.deflatable) return;
        expect(await decodeQr(result.png, 'png')).toEqual(readByAll(PAYLOAD));
        expect(result.png.length).toBeLessThanOrEqual(result.zlibPng.length);
      }
    },
  );

  it("counts what it keeps of a design (tile rows' tokens and sums) in the design cache's size", async () => {
    const branding = redFinders('dots', 'square', await markLogo());
    const caches = new DesignCaches();
    const spec = brandedPngSpec(PAYLOAD, 300, 4, branding);
    await renderDesign(spec, branding, caches);
    const [art] = [...caches.arts.values()];
    const bytes = (tiles: object) =>
      Object.values(tiles).reduce((sum: number, tile?: Uint8Array | Uint32Array) => sum + (tile?.byteLength ?? 0), 0);
    const tiles = bytes(art!.rgba) + bytes(art!.indexed!.tiles) + art!.indexed!.palette.byteLength;
    expect(art!.rowCodes!.kept.bytes).toBeGreaterThan(0);
    expect(caches.arts.calculatedSize).toBe(tiles + art!.rowCodes!.kept.bytes);
  });
});
