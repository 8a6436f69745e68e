// zbar is one of the scan check's decoders: an image ZXing and jsQR read but zbar does not (its own zbarimg agreeing)
// is refused, not answered.
import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import type { Branding } from '../../src/domain/branding.js';
import { DesignCaches } from '../../src/render/branded/design-caches.js';
import { designLayout } from '../../src/render/branded/design-layout.js';
import { rasterDesign, rasterPixels } from '../../src/render/branded/design-raster.js';
import { matrixForDesign, renderDesign, UnscannableDesignError } from '../../src/render/branded/render-design.js';
import { jsqrText, loadDecoder, zbarReads, zxingText } from '../../src/render/branded/scan-check.js';
import { decodeQr } from '../helpers/decode.js';

/**
 * Dots, circle finders in a colour, a caption, no logo: a design of the reader corpus's kind on which zbar misses a few
 * payloads.
 */
const branding: Branding = {
  moduleShape: 'dots',
  finderShape: 'circle',
  finderColor: '#1d3557ff',
  frame: { text: 'Menu', color: '#264653ff' },
  errorCorrectionFixed: true,
};
const spec = (payload: string) =>
  ({
    payload,
    format: 'png',
    size: 512,
    margin: 4,
    errorCorrection: 'Q',
    darkColor: '#264653ff',
    lightColor: '#e9f5dbff',
    branding,
  }) as const;
/** Found by drawing 60 such URLs (four missed on zbar, wasm and zbarimg alike) and the evidence run's corpus #213. */
const ZBAR_MISSES = ['https://jzxdoi.example/=Pe.yNwv+rQU/4S', 'https://njjgru.example/11-198793371x'];
const READ_BY_ALL = 'https://njjgru.example/0-0x';

/** The design's pixels as drawn, without the check that would refuse them. */
async function drawn(payload: string, caches: DesignCaches) {
  const { matrix } = matrixForDesign(spec(payload), branding, caches);
  const raster = await rasterDesign(spec(payload), branding, matrix, designLayout(matrix, 512, 4, branding), caches);
  const pixels = rasterPixels(raster);
  return {
    rgba: new Uint8Array(pixels.buffer, pixels.byteOffset, pixels.byteLength).slice(),
    width: raster.width,
    height: raster.height,
  };
}

describe('the scan check reads with zbar too', () => {
  it('refuses an image that ZXing and jsQR read but zbar does not, and answers one all three read', async () => {
    const caches = new DesignCaches();
    await loadDecoder(caches.zbar);
    for (const payload of ZBAR_MISSES) {
      const image = await drawn(payload, caches);
      const { rgba, width, height } = image;
      expect(await zxingText(image)).toBe(payload);
      expect(jsqrText(image)).toBe(payload);
      expect(await zbarReads(caches.zbar, image, payload)).toBe(false);
      // Debian's zbarimg, the reader the tests hold every answer to, misses it too.
      const png = await sharp(Buffer.from(rgba), { raw: { width, height, channels: 4 } })
        .png()
        .toBuffer();
      expect((await decodeQr(png, 'png')).zbar).not.toBe(payload);
      await expect(renderDesign(spec(payload), branding, caches)).rejects.toBeInstanceOf(UnscannableDesignError);
    }
    const answered = await renderDesign(spec(READ_BY_ALL), branding, caches);
    expect(await decodeQr(answered, 'png')).toEqual({ zxing: READ_BY_ALL, zbar: READ_BY_ALL, jsqr: READ_BY_ALL });
  });

  it(
    'answers text every reader reads even where zbar-wasm would have guessed another charset (its bytes are ' +
      'compared, as coded)',
    async () => {
      const caches = new DesignCaches();
      await loadDecoder(caches.zbar);
      const plain: Branding = {
        moduleShape: 'rounded',
        finderShape: 'square',
        finderColor: '#000000ff',
        errorCorrectionFixed: true,
      };
      // UTF-8 holding "—" (E2 80 94) without an ECI (docs/charsets.md): zbar-wasm's own conversion took it for
      // Shift_JIS
      // and the check refused the design, suggesting changes that were refused in turn; zbarimg reads it right.
      for (const payload of ['Héllo, wörld — ünïcode', 'a — b', '日本語']) {
        const request = {
          ...spec(payload),
          errorCorrection: 'H',
          darkColor: '#000000ff',
          lightColor: '#ffffffff',
          branding: plain,
        } as const;
        const png = await renderDesign(request, plain, caches);
        expect(await decodeQr(png, 'png')).toEqual({ zxing: payload, zbar: payload, jsqr: payload });
      }
    },
  );
});
