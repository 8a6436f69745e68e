// POST /decode: a photo-like picture of our own code (rotated, scaled, blurred, JPEG) reads back with every reader; no code is 422; bodies bounded.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodOf } from '../../src/domain/period.js';
import { createTestApp, generate, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const decode = (key: string, body: Buffer, contentType: string) =>
  t.app.inject({ method: 'POST', url: '/api/v1/QRManager/decode', headers: { 'x-api-key': key, 'content-type': contentType }, payload: body });

describe('POST /api/v1/QRManager/decode', () => {
  it('reads a photo-like image of our own code (rotated 17°, scaled, slightly blurred, on a grey background, JPEG) with ZXing and jsQR', async () => {
    const { key, accountId } = await t.newCaller('pro');
    const content = 'https://example.com/photo/of/a/print?id=31';
    const png = (await generate(t.app, key, { content, type: 'url', outputFormat: 'png', size: 300, errorCorrection: 'Q' })).rawPayload;
    const photo = await sharp(png)
      .resize(420)
      .rotate(17, { background: '#d8d4cc' })
      .blur(1.2)
      .extend({ top: 60, bottom: 90, left: 80, right: 40, background: '#c9c4ba' })
      .jpeg({ quality: 80 })
      .toBuffer();
    const before = await t.stores.meter.usage(accountId, periodOf(t.clock.now));
    const res = await decode(key, photo, 'image/jpeg');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ codes: [{ text: content, version: expect.any(Number), errorCorrection: 'Q', readers: { zxing: content, jsqr: content } }] });
    // No QR code is counted for a decode.
    expect((await t.stores.meter.usage(accountId, periodOf(t.clock.now))).qrs).toBe(before.qrs);
  });

  it('answers 422 no_code_found for an image without a code, 415 for another type and 400 for bytes that are no image', async () => {
    const { key } = await t.newCaller('pro');
    const blank = await sharp({ create: { width: 200, height: 200, channels: 3, background: '#ffffff' } })
      .webp()
      .toBuffer();
    const none = await decode(key, blank, 'image/webp');
    expect(none.statusCode).toBe(422);
    expect(none.json()).toMatchObject({ code: 'no_code_found' });
    expect((await decode(key, blank, 'image/gif')).statusCode).toBe(415);
    const garbage = await decode(key, Buffer.from('not an image at all'), 'image/png');
    expect(garbage.statusCode).toBe(400);
    expect(garbage.json()).toMatchObject({ code: 'invalid_request' });
  });

  it('refuses an image over the pixel limit before decoding it, and a body over the byte limit', async () => {
    const { key } = await t.newCaller('pro');
    const huge = await sharp({ create: { width: 5000, height: 4000, channels: 3, background: '#ffffff' } })
      .png({ compressionLevel: 9 })
      .toBuffer();
    const res = await decode(key, huge, 'image/png');
    expect(res.statusCode).toBe(413);
    const big = await decode(key, Buffer.alloc(8 * 1024 * 1024 + 1), 'image/png');
    expect(big.statusCode).toBe(413);
  });
});
