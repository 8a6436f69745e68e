// POST /decode: a photo-like picture of our own code reads back with every reader; no code is 422; bodies bounded;
// metered as a request and burst-limited (embedded and Redis mode).
import { randomBytes, randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodOf } from '../../src/domain/period.js';
import { createTestApp, generate, type TestApp } from '../helpers/app.js';
import { oneCodeDecoded } from '../helpers/decode-answers.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';

let t: TestApp;
let redis: RedisServer;
let tRedis: TestApp;
/** One decode thread and no time for the slow readers: what a flood meets, shown without waiting for it. */
let tBudget: TestApp;
beforeAll(async () => {
  redis = await startRedisServer();
  [t, tRedis, tBudget] = await Promise.all([
    createTestApp(),
    createTestApp({ redis: { url: redis.url, keyPrefix: `t-${randomUUID()}:` } }),
    createTestApp({ env: { DECODE_THREADS: '1', DECODE_BUDGET_MS: '0' } }),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([t?.close(), tRedis?.close(), tBudget?.close()]);
  await redis?.destroy();
});

const decode = (key: string, body: Buffer, contentType: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/QRManager/decode',
    headers: { 'x-api-key': key, 'content-type': contentType },
    payload: body,
  });

describe('POST /api/v1/QRManager/decode', () => {
  it(
    'reads a photo-like image of our own code (rotated 17°, scaled, slightly blurred, on a grey background, ' +
      'JPEG) with ZXing, zbar and jsQR',
    async () => {
      const { key, accountId } = await t.newCaller('pro');
      const content = 'https://example.com/photo/of/a/print?id=31';
      const png = (
        await generate(t.app, key, { content, type: 'url', outputFormat: 'png', size: 300, errorCorrection: 'Q' })
      ).rawPayload;
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
      expect(res.json()).toEqual(oneCodeDecoded(content, 'Q', 'all readers'));
      // No QR code is counted for a decode.
      expect((await t.stores.meter.usage(accountId, periodOf(t.clock.now))).qrs).toBe(before.qrs);
    },
  );

  it(
    'answers 422 no_code_found for an image without a code, 415 for another type and 400 for bytes that are no ' +
      'image',
    async () => {
      const { key } = await t.newCaller('pro');
      const blank = await sharp({ create: { width: 200, height: 200, channels: 3, background: '#ffffff' } })
        .webp()
        .toBuffer();
      const none = await decode(key, blank, 'image/webp');
      expect(none.statusCode).toBe(422);
      expect(none.json()).toMatchObject({
        code: 'no_code_found',
        readersRan: ['zxing', 'zbar', 'jsqr'],
        readersSkipped: [],
      });
      expect((await decode(key, blank, 'image/gif')).statusCode).toBe(415);
      const garbage = await decode(key, Buffer.from('not an image at all'), 'image/png');
      expect(garbage.statusCode).toBe(400);
      expect(garbage.json()).toMatchObject({ code: 'invalid_request' });
    },
  );

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

describe.each([
  ['embedded (SQLite)', () => t],
  ['Redis', () => tRedis],
] as const)('POST /decode metering, %s', (_mode, app) => {
  const post = (key: string, body: Buffer, contentType: string) =>
    app().app.inject({
      method: 'POST',
      url: '/api/v1/QRManager/decode',
      headers: { 'x-api-key': key, 'content-type': contentType },
      payload: body,
    });
  const usageOf = (accountId: string) => app().stores.meter.usage(accountId, periodOf(app().clock.now));
  let blank: Buffer;
  beforeAll(async () => {
    blank = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#ffffff' } })
      .png()
      .toBuffer();
  });

  it('counts a decode as one request and no QR, with the quota headers, whether or not a code was found', async () => {
    const { key, accountId } = await app().newCaller('free');
    const content = 'decode is metered';
    const png = (await generate(app().app, key, { content, type: 'text', outputFormat: 'png' })).rawPayload;
    expect(await usageOf(accountId)).toEqual({ requests: 1, qrs: 1 });
    const found = await post(key, png, 'image/png');
    expect(found.statusCode, found.body).toBe(200);
    expect(found.headers['x-ratelimit-limit']).toBe('500');
    expect(found.headers['x-ratelimit-remaining']).toBe('498');
    expect(found.headers['ratelimit']).toContain('"burst";r=');
    const none = await post(key, blank, 'image/png');
    expect(none.statusCode).toBe(422);
    expect(none.headers['x-ratelimit-remaining']).toBe('497');
    expect(await usageOf(accountId)).toEqual({ requests: 3, qrs: 1 });
  });

  it(
    'gives the request back only for a body that is nothing to decode (another type, empty); an image that is ' +
      'none still counts',
    async () => {
      const { key, accountId } = await app().newCaller('free');
      expect((await post(key, blank, 'image/gif')).statusCode).toBe(415);
      expect((await post(key, Buffer.alloc(0), 'image/png')).statusCode).toBe(400);
      expect(await usageOf(accountId)).toEqual({ requests: 0, qrs: 0 });
      expect((await post(key, Buffer.from('no image'), 'image/png')).statusCode).toBe(400);
      expect(await usageOf(accountId)).toEqual({ requests: 1, qrs: 0 });
    },
  );

  it("answers 429 rate_limited past the plan's burst (10 a second on free), counting nothing for it", async () => {
    const { key, accountId } = await app().newCaller('free');
    // The app's clock stands still: every call falls in one second. 415s are cheap and still take their burst slot.
    const statuses = [];
    for (let i = 0; i < 11; i++) statuses.push((await post(key, blank, 'image/gif')).statusCode);
    expect(statuses).toEqual([...Array(10).fill(415), 429]);
    const limited = await post(key, blank, 'image/png');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: 'rate_limited' });
    expect(limited.headers['retry-after']).toBe('1');
    expect(limited.headers['ratelimit']).toContain('"burst";r=0');
    expect(await usageOf(accountId)).toEqual({ requests: 0, qrs: 0 });
  });

  it('answers 429 quota_exceeded once the monthly requests are used up, before reading the image', async () => {
    const { key, accountId } = await app().newCaller('free');
    const period = periodOf(app().clock.now);
    for (let i = 0; i < 500; i++)
      await app().stores.meter.reserveRequest({ accountId, period, limits: { requests: 500 }, at: app().clock.now });
    const res = await post(key, blank, 'image/png');
    expect(res.statusCode).toBe(429);
    expect(res.json()).toMatchObject({ code: 'quota_exceeded' });
    // The detail says when the quota comes back and which plan allows more.
    expect(res.json().detail).toMatch(/the quota resets at \S+Z; the Pro plan allows \d+ requests a month$/);
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    expect(await usageOf(accountId)).toEqual({ requests: 500, qrs: 0 });
  });
});

describe('POST /decode on a budget, fair between accounts', () => {
  const post = (key: string, body: Buffer, contentType: string) =>
    tBudget.app.inject({
      method: 'POST',
      url: '/api/v1/QRManager/decode',
      headers: { 'x-api-key': key, 'content-type': contentType },
      payload: body,
    });
  let noise: Buffer;
  beforeAll(async () => {
    const side = 2000;
    noise = await sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } })
      .jpeg({ quality: 40 })
      .toBuffer();
  });

  it('names the readers the budget left out, and still answers what ZXing read', async () => {
    const { key } = await tBudget.newCaller('pro');
    const content = 'read by ZXing alone';
    const png = (await generate(tBudget.app, key, { content, type: 'text', outputFormat: 'png' })).rawPayload;
    const res = await post(key, png, 'image/png');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual(oneCodeDecoded(content, 'M', 'zxing alone'));
    const none = await post(key, noise, 'image/jpeg');
    expect(none.statusCode).toBe(422);
    expect(none.json()).toMatchObject({
      code: 'no_code_found',
      readersRan: ['zxing'],
      readersSkipped: ['zbar', 'jsqr'],
    });
  });

  it(
    "serves another account's image before a flood's queued " + 'ones, and refuses the flood past its share (counted)',
    async () => {
      const flooder = await tBudget.newCaller('free');
      const bystander = await tBudget.newCaller('free');
      const answered: string[] = [];
      const flood = Array.from({ length: 4 }, () =>
        post(flooder.key, noise, 'image/jpeg').then((res) => (answered.push('flood'), res)),
      );
      await waitFor('one flood image decoding and three waiting', async () => {
        const metrics = (await tBudget.app.inject({ method: 'GET', url: '/metrics' })).body;
        return metrics.includes('qrm_decode_images{state="waiting"} 3');
      });
      const small = await sharp(noise).resize(256).png().toBuffer();
      const served = post(bystander.key, small, 'image/png').then((res) => (answered.push('bystander'), res));
      const refused = await post(flooder.key, noise, 'image/jpeg');
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toMatchObject({ code: 'too_many_decodes' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect((await served).statusCode).toBe(422);
      for (const res of await Promise.all(flood)) expect(res.statusCode).toBe(422);
      // Behind at most the one running and one more of the flood, never behind its whole queue.
      expect(answered.slice(-2)).toEqual(['flood', 'flood']);
      // The refused decode counts like the others: a flood is not free.
      expect(await tBudget.stores.meter.usage(flooder.accountId, periodOf(tBudget.clock.now))).toEqual({
        requests: 5,
        qrs: 0,
      });
    },
  );
});
