// The generation endpoint returns scannable images of the requested format, with the documented headers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeQr } from '../helpers/decode.js';
import { createTestApp, generate, type TestApp } from '../helpers/app.js';

let t: TestApp;
let proKey: string;

beforeAll(async () => {
  t = await createTestApp();
  proKey = (await t.newCaller('pro')).key;
});
afterAll(async () => t.close());

const CONTENT_TYPES = { png: 'image/png', webp: 'image/webp', svg: 'image/svg+xml' } as const;
const SAMPLES = {
  url: 'https://example.com/menu?table=12&lang=pt-BR#drinks',
  text: 'Olá, mundo! Ünïcödé text with emoji 🎉 and\nnew lines',
} as const;

describe('POST /api/v1/QRManager/generate', () => {
  for (const format of ['png', 'webp', 'svg'] as const) {
    for (const type of ['url', 'text'] as const) {
      it(`returns a ${format} image of ${type} content that zbar and ZXing decode to the content`, async () => {
        const res = await generate(t.app, proKey, { content: SAMPLES[type], type, outputFormat: format });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe(CONTENT_TYPES[format]);
        expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
        const decoded = await decodeQr(res.rawPayload, format);
        expect(decoded).toEqual({ zbar: SAMPLES[type], zxing: SAMPLES[type] });
      });
    }
  }

  it('sends a strong ETag that is equal for equal requests and differs when the image differs', async () => {
    const body = { content: 'https://example.com/etag', type: 'url', outputFormat: 'png' };
    const first = await generate(t.app, proKey, body);
    const again = await generate(t.app, proKey, body);
    const bigger = await generate(t.app, proKey, { ...body, size: 1024 });
    expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(bigger.headers.etag).not.toBe(first.headers.etag);
  });

  it('answers with quota headers in the IETF and X-RateLimit forms', async () => {
    const { key } = await t.newCaller('free');
    const res = await generate(t.app, key, { content: 'quota headers', type: 'text', outputFormat: 'png' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['ratelimit-policy']).toMatch(/^"monthly";q=500;w=\d+, "monthly-qrs";q=5;w=\d+$/);
    expect(res.headers['ratelimit']).toMatch(/^"monthly";r=499;t=\d+, "monthly-qrs";r=4;t=\d+$/);
    expect(res.headers['x-ratelimit-limit']).toBe('500');
    expect(res.headers['x-ratelimit-remaining']).toBe('499');
    const reset = new Date(Number(res.headers['x-ratelimit-reset']) * 1000);
    expect(reset.getUTCDate()).toBe(1);
    expect(reset.getUTCHours()).toBe(0);
    expect(reset.getTime()).toBeGreaterThan(Date.now());
  });

  it('echoes a safe X-Request-Id and makes one up otherwise', async () => {
    const echoed = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'trace-123' } });
    expect(echoed.headers['x-request-id']).toBe('trace-123');
    const made = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id\twith tab' } });
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('honours size, margin, error correction and colours, and the result still scans', async () => {
    const content = 'https://example.com/styled';
    const res = await generate(t.app, proKey, {
      content,
      type: 'url',
      outputFormat: 'png',
      size: 300,
      margin: 2,
      errorCorrection: 'H',
      darkColor: '#1A237E',
      lightColor: '#FFF8E1',
    });
    expect(res.statusCode).toBe(200);
    const sharp = (await import('sharp')).default;
    const meta = await sharp(res.rawPayload).metadata();
    expect([meta.width, meta.height]).toEqual([300, 300]);
    const { data } = await sharp(res.rawPayload).raw().toBuffer({ resolveWithObject: true });
    expect([...data.subarray(0, 3)]).toEqual([0xff, 0xf8, 0xe1]); // corner pixel is the light colour, exactly
    expect(await decodeQr(res.rawPayload, 'png')).toEqual({ zbar: content, zxing: content });
  });

  it('writes WebP losslessly and no larger than the PNG of the same code', async () => {
    const body = { content: 'https://example.com/size-compare/with/a/longer/path?and=query', type: 'url' };
    const png = await generate(t.app, proKey, { ...body, outputFormat: 'png' });
    const webp = await generate(t.app, proKey, { ...body, outputFormat: 'webp' });
    expect(webp.rawPayload.length).toBeLessThanOrEqual(png.rawPayload.length);
    const sharp = (await import('sharp')).default;
    const pngPixels = await sharp(png.rawPayload).ensureAlpha().raw().toBuffer();
    const webpPixels = await sharp(webp.rawPayload).ensureAlpha().raw().toBuffer();
    expect(webpPixels.equals(pngPixels)).toBe(true);
  });
});
