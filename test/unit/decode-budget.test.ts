// Decoding on a budget: zbar and jsQR read scaled-down regions; a reader not started within the budget is skipped,
// named.
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeImage } from '../../src/render/decode-image.js';
import { ZbarReader } from '../../src/render/branded/scan-check.js';
import {
  JSQR_WHOLE_IMAGE_MAX_PIXELS,
  regionAround,
  SLOW_READER_MAX_PIXELS,
  wholeImage,
} from '../../src/render/decode-regions.js';
import { renderImage } from '../../src/render/render-image.js';
import { plainSpec } from '../helpers/render-fixtures.js';
import { oneCodeDecoded } from '../helpers/decode-answers.js';

const MAX_PIXELS = 16_000_000;
const content = 'https://example.com/a/code/in/a/big/photo';

/** A clock that answers the given milliseconds, one a call, then stays at the last. */
function steppedClock(...times: number[]): () => number {
  let call = 0;
  return () => times[Math.min(call++, times.length - 1)]!;
}

let photo: Buffer;
let noise: Buffer;
beforeAll(async () => {
  // A 600 px code placed off-centre in a 3000 × 2400 grey picture.
  const code = Buffer.from(renderImage(plainSpec(content, { size: 600 })));
  photo = await sharp({ create: { width: 3000, height: 2400, channels: 3, background: '#bdb8ae' } })
    .composite([{ input: code, left: 1700, top: 900 }])
    .jpeg({ quality: 85 })
    .toBuffer();
  const side = 1200;
  noise = await sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } })
    .jpeg({ quality: 50 })
    .toBuffer();
}, 30_000);

describe('decodeImage on a budget', () => {
  it('reads a code in a large photo with ZXing, zbar and jsQR, the slow two on the region around it', async () => {
    const outcome = await decodeImage(photo, MAX_PIXELS, { budgetMs: 60_000 }, new ZbarReader());
    expect(outcome).toEqual({ ok: true, ...oneCodeDecoded(content, 'M', 'all readers') });
  });

  it('skips the slow readers once the budget has run out, and says so; ZXing still reads', async () => {
    const outcome = await decodeImage(photo, MAX_PIXELS, { budgetMs: 0 }, new ZbarReader());
    expect(outcome).toEqual({ ok: true, ...oneCodeDecoded(content, 'M', 'zxing alone') });
  });

  it('abandons jsQR on a noise image when the budget runs out while zbar reads', async () => {
    // Start at 0 with a 1 s budget; zbar is checked at 10 ms, jsQR at 1,500 ms.
    const outcome = await decodeImage(
      noise,
      MAX_PIXELS,
      { budgetMs: 1_000, now: steppedClock(0, 10, 1_500) },
      new ZbarReader(),
    );
    expect(outcome).toEqual({ ok: true, codes: [], readersRan: ['zxing', 'zbar'], readersSkipped: ['jsqr'] });
  });
});

describe('what the slow readers are given', () => {
  it('never the 16 megapixels: a whole image is scaled to at most a megapixel (jsQR: a quarter of one)', () => {
    const region = wholeImage(4000, 4000);
    expect(region.scaledWidth * region.scaledHeight).toBeLessThanOrEqual(SLOW_READER_MAX_PIXELS);
    const forJsqr = wholeImage(4000, 4000, JSQR_WHOLE_IMAGE_MAX_PIXELS);
    expect(forJsqr.scaledWidth * forJsqr.scaledHeight).toBeLessThanOrEqual(512 * 512);
    expect(region).toMatchObject({ left: 0, top: 0, width: 4000, height: 4000 });
    expect(wholeImage(300, 200)).toMatchObject({ scaledWidth: 300, scaledHeight: 200 });
  });

  it('around a code: its quiet zone kept, clipped to the image, scaled to about 8 pixels a module', () => {
    // A version 3 code (29 modules) drawn 2,900 px wide, 100 px a module.
    const corners = {
      topLeft: { x: 500, y: 400 },
      topRight: { x: 3400, y: 400 },
      bottomLeft: { x: 500, y: 3300 },
      bottomRight: { x: 3400, y: 3300 },
    };
    const region = regionAround(corners, 3, 4000, 4000);
    expect(region.left).toBeLessThanOrEqual(100);
    expect(region.left + region.width).toBe(4000);
    expect(region.scaledWidth).toBeGreaterThan(29 * 8);
    expect(region.scaledWidth).toBeLessThan(29 * 8 * 1.6);
    // A small code is left at its own size.
    const small = regionAround(
      { ...corners, topRight: { x: 558, y: 400 }, bottomLeft: { x: 500, y: 458 }, bottomRight: { x: 558, y: 458 } },
      3,
      4000,
      4000,
    );
    expect(small.scaledWidth).toBe(small.width);
  });
});
