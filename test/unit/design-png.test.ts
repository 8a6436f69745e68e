// The branded PNG writer: palette PNG when a design has at most 256 colours, truecolour past that, the same pixels
// either way.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { Branding } from '../../src/domain/branding.js';
import { DesignCaches } from '../../src/render/branded/design-caches.js';
import { designLayout } from '../../src/render/branded/design-layout.js';
import { writeDesignPng } from '../../src/render/branded/design-png.js';
import { rasterDesign, rasterPixels } from '../../src/render/branded/design-raster.js';
import { matrixForDesign } from '../../src/render/branded/render-design.js';
import { brandedPngSpec, markLogo } from '../helpers/branded-specs.js';
import { decodeQr, readByAll } from '../helpers/decode.js';

const PAYLOAD = 'https://example.com/branded/palette';

async function drawn(branding: Branding, lightColor = '#ffffffff') {
  const spec = brandedPngSpec(PAYLOAD, 400, 4, branding, lightColor);
  const { matrix } = matrixForDesign(spec, branding);
  const raster = await rasterDesign(
    spec,
    branding,
    matrix,
    designLayout(matrix, spec.size, spec.margin, branding),
    new DesignCaches(),
  );
  const pixels = rasterPixels(raster); // before the writer, which filters the raster's scanlines in place
  const png = writeDesignPng(raster);
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    png,
    colourType: png[25],
    decoded: new Uint8Array(data),
    expected: new Uint8Array(pixels.buffer, pixels.byteOffset, pixels.byteLength),
    info,
  };
}

const base = {
  moduleShape: 'rounded',
  finderShape: 'circle',
  finderColor: '#c1121fff',
  errorCorrectionFixed: false,
} as const;

describe('branded PNG', () => {
  it(
    'writes a design of few colours (shapes, a logo) as a palette PNG that decodes to exactly the drawn pixels ' +
      'and to the payload',
    async () => {
      const logo = await markLogo();
      const { png, colourType, decoded, expected } = await drawn({ ...base, logo });
      expect(colourType).toBe(3);
      expect(Buffer.from(decoded).equals(Buffer.from(expected))).toBe(true);
      expect(await decodeQr(png, 'png')).toEqual(readByAll(PAYLOAD));
    },
  );

  it('keeps a translucent background in the palette (tRNS) with the same pixels', async () => {
    const { png, colourType, decoded, expected } = await drawn(base, '#ffffff80');
    expect(colourType).toBe(3);
    expect(png.includes(Buffer.from('tRNS'))).toBe(true);
    expect(Buffer.from(decoded).equals(Buffer.from(expected))).toBe(true);
  });

  it(
    'falls back to truecolour with alpha past 256 ' + 'colours (a logo and a caption band), with the same ' + 'pixels',
    async () => {
      const logo = await markLogo();
      const { png, colourType, decoded, expected } = await drawn({
        ...base,
        logo,
        frame: { text: 'SCAN ME', color: '#1d3557ff' },
      });
      expect(colourType).toBe(6);
      expect(Buffer.from(decoded).equals(Buffer.from(expected))).toBe(true);
      expect(await decodeQr(png, 'png')).toEqual(readByAll(PAYLOAD));
    },
  );
});
