// A dynamic code's image takes the branding options of POST /generate as query parameters: drawn branded, read by
// ZXing, zbar and jsQR; an option without the one it qualifies is refused.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { codesApi } from '../helpers/codes.js';
import { decodeQr, readByAll } from '../helpers/decode.js';
import { logoPng, uploadLogo } from '../helpers/logos.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

async function colours(png: Buffer): Promise<number> {
  const { data } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const seen = new Set<number>();
  for (let i = 0; i < data.length; i += 4) seen.add(data.readUInt32BE(i));
  return seen.size;
}

describe("a dynamic code's image", () => {
  it(
    'is drawn with the logo, shapes, finder colour and frame named in the query, and reads exactly on all three ' +
      'readers',
    async () => {
      const { key } = await t.newCaller('pro');
      const logoId = (await uploadLogo(t.app, key, await logoPng(), 'image/png')).json().id as string;
      const code = await codesApi(t.app, key).created('https://example.com/branded-dynamic');
      const query = new URLSearchParams({
        size: '400',
        moduleShape: 'rounded',
        finderShape: 'circle',
        finderColor: '#1D3557',
        logoId,
        logoScale: '0.2',
        frameText: 'SCAN ME',
      });
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/v1/QRManager/codes/${code.id}/image?${query}`,
        headers: { 'x-api-key': key },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(await colours(res.rawPayload)).toBeGreaterThan(2);
      expect(await decodeQr(res.rawPayload, 'png')).toEqual(readByAll(code.shortUrl));
    },
  );

  it('refuses logoScale without logoId, and an unknown logo, naming the field', async () => {
    const { key } = await t.newCaller('pro');
    const code = await codesApi(t.app, key).created('https://example.com/branded-dynamic-refused');
    const alone = await t.app.inject({
      method: 'GET',
      url: `/api/v1/QRManager/codes/${code.id}/image?logoScale=0.2`,
      headers: { 'x-api-key': key },
    });
    expect(alone.statusCode).toBe(400);
    expect(alone.json()).toMatchObject({ code: 'invalid_request', errors: [{ field: 'logoScale' }] });
    const unknown = await t.app.inject({
      method: 'GET',
      url: `/api/v1/QRManager/codes/${code.id}/image?logoId=logo_nope`,
      headers: { 'x-api-key': key },
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ code: 'invalid_request', errors: [{ field: 'logo.id' }] });
  });
});
