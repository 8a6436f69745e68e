// Every failure answers application/problem+json with its status and stable code, never an image or a stack, and never
// counts.
import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { periodOf } from '../../src/domain/period.js';
import { revokeKey } from '../../src/services/api-keys.js';
import { createTestApp, useTestApp, generate, GENERATE_URL } from '../helpers/app.js';

let free: { key: string; accountId: string; keyId: string };
let pro: { key: string; accountId: string };

const t = useTestApp();
beforeAll(async () => {
  free = await t.newCaller('free');
  pro = await t.newCaller('pro');
});

const VALID = { content: 'https://example.com', type: 'url', outputFormat: 'png' };

function expectProblem(res: LightMyRequestResponse, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json();
  expect(body).toMatchObject({ status, code, type: `/problems/${code}` });
  expect(typeof body.title).toBe('string');
  expect(typeof body.detail).toBe('string');
  expect(JSON.stringify(body)).not.toMatch(/at .*\.(ts|js):\d+/); // no stack frames
  return body;
}

describe('400 invalid bodies', () => {
  it('names a missing required field with invalid_request', async () => {
    const body = expectProblem(
      await generate(t.app, free.key, { content: 'x', outputFormat: 'png' }),
      400,
      'invalid_request',
    );
    expect(body.errors).toContainEqual({ field: 'type', detail: 'required' });
  });

  it('rejects unknown fields by name', async () => {
    const body = expectProblem(await generate(t.app, free.key, { ...VALID, colour: 'red' }), 400, 'invalid_request');
    expect(body.errors[0].field).toBe('colour');
  });

  it('answers unsupported_type for a type outside the eight', async () => {
    const body = expectProblem(await generate(t.app, free.key, { ...VALID, type: 'barcode' }), 400, 'unsupported_type');
    expect(body.errors[0].field).toBe('type');
  });

  it('answers unsupported_format for an unknown outputFormat', async () => {
    expectProblem(await generate(t.app, free.key, { ...VALID, outputFormat: 'gif' }), 400, 'unsupported_format');
  });

  it('answers invalid_content naming the field when content does not fit its type', async () => {
    const body = expectProblem(
      await generate(t.app, free.key, { ...VALID, content: 'ftp://example.com/file' }),
      400,
      'invalid_content',
    );
    expect(body.errors[0].field).toBe('content');
    expect(body.detail).toMatch(/http or https/);
  });

  it('refuses malformed JSON and prototype-pollution keys', async () => {
    expectProblem(await generate(t.app, free.key, '{"content": "x", '), 400, 'invalid_request');
    expectProblem(
      await generate(t.app, free.key, '{"content":"x","type":"text","outputFormat":"png","__proto__":{"admin":true}}'),
      400,
      'invalid_request',
    );
  });

  it('refuses unreadable colour pairs and out-of-range sizes', async () => {
    const contrast = expectProblem(
      await generate(t.app, free.key, { ...VALID, darkColor: '#777777', lightColor: '#888888' }),
      400,
      'invalid_request',
    );
    expect(contrast.errors[0].field).toBe('darkColor');
    expectProblem(await generate(t.app, free.key, { ...VALID, darkColor: 'black' }), 400, 'invalid_request');
    expectProblem(await generate(t.app, free.key, { ...VALID, size: 10 }), 400, 'invalid_request');
    expectProblem(await generate(t.app, free.key, { ...VALID, size: 512.5 }), 400, 'invalid_request');
  });

  it('says how large the image must be when the code does not fit the requested size', async () => {
    const body = expectProblem(
      await generate(t.app, free.key, { content: 'x'.repeat(1500), type: 'text', outputFormat: 'png', size: 64 }),
      400,
      'invalid_request',
    );
    expect(body.errors[0].field).toBe('size');
    expect(body.minimumSize).toBeGreaterThan(64);
  });
});

describe('401 keys', () => {
  it('answers missing_api_key without the header', async () => {
    expectProblem(await generate(t.app, undefined, VALID), 401, 'missing_api_key');
  });

  it('answers invalid_api_key for a malformed key, a bad checksum and an unknown well-formed key', async () => {
    expectProblem(await generate(t.app, 'not-a-key', VALID), 401, 'invalid_api_key');
    const flipped = free.key.slice(0, -1) + (free.key.endsWith('A') ? 'B' : 'A');
    expectProblem(await generate(t.app, flipped, VALID), 401, 'invalid_api_key');
    // A real key with its first random character changed (to one it does not already have: the keys are random).
    const real = (await t.newCaller('free')).key;
    const unknown = real.replace(/^qrm_live_./, real['qrm_live_'.length] === 'X' ? 'qrm_live_Y' : 'qrm_live_X');
    expectProblem(await generate(t.app, unknown, VALID), 401, 'invalid_api_key');
  });

  it('refuses a revoked key on the very next request', async () => {
    const caller = await t.newCaller('free');
    expect((await generate(t.app, caller.key, VALID)).statusCode).toBe(200);
    await revokeKey({ ...t.stores, keyPepper: undefined, clock: () => new Date() }, caller.accountId, caller.keyId);
    expectProblem(await generate(t.app, caller.key, VALID), 401, 'invalid_api_key');
  });
});

describe('403 plan features', () => {
  it('refuses svg on the free plan with plan_upgrade_required and serves it on pro', async () => {
    const body = expectProblem(
      await generate(t.app, free.key, { ...VALID, outputFormat: 'svg' }),
      403,
      'plan_upgrade_required',
    );
    expect(body.requiredPlan).toBe('pro');
    const res = await generate(t.app, pro.key, { ...VALID, outputFormat: 'svg' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/svg+xml');
  });
});

describe('413, 415 and 422', () => {
  it('answers payload_too_large for a body over the limit', async () => {
    expectProblem(
      await generate(t.app, free.key, { ...VALID, content: 'x'.repeat(20_000), type: 'text' }),
      413,
      'payload_too_large',
    );
  });

  it('answers unsupported_media_type for a body that is not JSON', async () => {
    for (const [contentType, payload] of [
      ['text/plain', 'hello'],
      ['application/x-www-form-urlencoded', 'a=b'],
    ]) {
      const headers = { 'x-api-key': free.key, 'content-type': contentType };
      const res = await t.app.inject({ method: 'POST', url: GENERATE_URL, headers, payload });
      expectProblem(res, 415, 'unsupported_media_type');
    }
  });

  it.each([
    {
      what: 'encodes content at the exact byte capacity and answers content_too_long with the limit one byte over',
      char: 'a',
      level: 'M',
      limit: 2331,
      answer: { limit: 2331 },
      detail: 'at error correction M a QR code holds at most 2,331 bytes; a lower errorCorrection holds more',
    },
    {
      what:
        'states the limit of the content as it is written: capitals in alphanumeric mode hold more than the 1,273 ' +
        'bytes of level H',
      char: 'A',
      level: 'H',
      limit: 1852,
      answer: { limit: 1852, length: 1853, unit: 'characters', encoding: 'alphanumeric', errorCorrection: 'H' },
      detail: 'at error correction H a QR code holds at most 1,852 of them; a lower errorCorrection holds more',
    },
  ])('$what', async ({ char, level, limit, answer, detail }) => {
    const request = (length: number) =>
      generate(t.app, pro.key, {
        content: char.repeat(length),
        type: 'text',
        outputFormat: 'png',
        errorCorrection: level,
      });
    expect((await request(limit)).statusCode).toBe(200);
    const body = expectProblem(await request(limit + 1), 422, 'content_too_long');
    expect(body).toMatchObject(answer);
    expect(body.detail).toContain(detail);
  });
});

describe('404', () => {
  it('answers unknown routes with problem+json', async () => {
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/v1/nope' }), 404, 'not_found');
  });
});

describe('what does not count', () => {
  it('meters none of the 400, 401, 403, 413, 415 and 422 answers', async () => {
    const caller = await t.newCaller('free');
    await generate(t.app, caller.key, { ...VALID, outputFormat: 'svg' });
    await generate(t.app, caller.key, { ...VALID, type: 'nope' });
    await generate(t.app, caller.key, { ...VALID, content: 'x'.repeat(20_000) });
    await generate(t.app, caller.key, { content: 'b'.repeat(2400), type: 'text', outputFormat: 'png' });
    const usage = await t.stores.meter.usage(caller.accountId, periodOf(new Date()));
    expect(usage).toEqual({ requests: 0, qrs: 0 });
  });
});

describe('503', () => {
  it(
    'answers overloaded with Retry-After when the ' + 'render queue is full, and does not count those ' + 'requests',
    async () => {
      // One render thread and no queue; 2048 px PNGs are past the inline limit, so each needs the thread (WebP would
      // render inline).
      const busy = await createTestApp({ env: { RENDER_MAX_QUEUE: '0' } });
      try {
        const caller = await busy.newCaller('pro');
        const results = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            generate(busy.app, caller.key, {
              content: `https://example.com/${i}`,
              type: 'url',
              outputFormat: 'png',
              size: 2048,
            }),
          ),
        );
        const overloaded = results.filter((r) => r.statusCode === 503);
        const ok = results.filter((r) => r.statusCode === 200);
        expect(overloaded.length).toBeGreaterThan(0);
        expect(ok.length + overloaded.length).toBe(12);
        for (const res of overloaded) {
          expectProblem(res, 503, 'overloaded');
          expect(res.headers['retry-after']).toBe('1');
        }
        const usage = await busy.stores.meter.usage(caller.accountId, periodOf(new Date()));
        expect(usage.requests).toBe(ok.length);
      } finally {
        await busy.close();
      }
    },
  );

  it('answers unavailable with Retry-After when the store is down', async () => {
    const down = await createTestApp();
    const caller = await down.newCaller('free');
    await down.stores.close();
    const res = await generate(down.app, caller.key, VALID);
    expectProblem(res, 503, 'unavailable');
    expect(res.headers['retry-after']).toBe('1');
    await down.app.close();
  });
});
