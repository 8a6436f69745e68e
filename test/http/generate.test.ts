// The generation endpoint returns scannable images of the requested format, with the documented headers.
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeQr, readByAll } from '../helpers/decode.js';
import { useTestApp, generate } from '../helpers/app.js';

let proKey: string;

const t = useTestApp();
beforeAll(async () => {
  proKey = (await t.newCaller('pro')).key;
});

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
        expect(decoded).toEqual(readByAll(SAMPLES[type]));
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
    expect(res.headers['ratelimit-policy']).toMatch(
      /^"monthly";q=500;w=\d+, "monthly-qrs";q=5;w=\d+, "burst";q=10;w=1$/,
    );
    expect(res.headers['ratelimit']).toMatch(/^"monthly";r=499;t=\d+, "monthly-qrs";r=4;t=\d+, "burst";r=9;t=1$/);
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
    const made = await t.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'bad id\twith tab' },
    });
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
    expect(await decodeQr(res.rawPayload, 'png')).toEqual(readByAll(content));
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

describe('repeated codes and conditional requests', () => {
  const metric = async (name: string, labels: string) => {
    const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
    return line ? Number(line.split(' ').at(-1)) : 0;
  };

  it('answers a repeated code from the image cache without rendering it again', async () => {
    const body = { content: 'https://example.com/cached', type: 'url', outputFormat: 'png' };
    const first = await generate(t.app, proKey, body);
    const rendersBefore = await metric('qrm_render_duration_seconds_count', 'format="png",outcome="ok"');
    const hitsBefore = await metric('qrm_cache_requests_total', 'result="hit"');
    const second = await generate(t.app, proKey, body);
    expect(second.statusCode).toBe(200);
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(await metric('qrm_render_duration_seconds_count', 'format="png",outcome="ok"')).toBe(rendersBefore);
    expect(await metric('qrm_cache_requests_total', 'result="hit"')).toBe(hitsBefore + 1);
  });

  it('answers If-None-Match with the current ETag by 304 without a body, and does not count it', async () => {
    const caller = await t.newCaller('free');
    const body = { content: 'https://example.com/conditional', type: 'url', outputFormat: 'png' };
    const first = await generate(t.app, caller.key, body);
    const etag = first.headers.etag as string;
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/QRManager/generate',
        headers: { 'content-type': 'application/json', 'x-api-key': caller.key, 'if-none-match': header },
        payload: JSON.stringify(body),
      });
      expect(res.statusCode, header).toBe(304);
      expect(res.rawPayload.length).toBe(0);
      expect(res.headers.etag).toBe(etag);
    }
    const changed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/QRManager/generate',
      headers: { 'content-type': 'application/json', 'x-api-key': caller.key, 'if-none-match': etag },
      payload: JSON.stringify({ ...body, size: 256 }),
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers['x-ratelimit-remaining']).toBe('498'); // the first and this one; the four 304s were free
  });

  it('still refuses a bad key or a paid format before answering 304', async () => {
    const caller = await t.newCaller('free');
    const headers = { 'content-type': 'application/json', 'if-none-match': '*' };
    const payload = JSON.stringify({ content: 'x', type: 'text', outputFormat: 'svg' });
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/v1/QRManager/generate', headers, payload })).statusCode,
    ).toBe(401);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/QRManager/generate',
          headers: { ...headers, 'x-api-key': caller.key },
          payload,
        })
      ).statusCode,
    ).toBe(403);
  });
});
