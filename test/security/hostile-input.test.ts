// Hostile input against the API: generated bodies and headers never cause a 5xx, always get problem+json, never leak.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/domain/api-key.js';
import { ERROR_CORRECTION_LEVELS } from '../../src/domain/render-options.js';
import { BYTE_CAPACITY } from '../../src/render/qr-matrix.js';
import { useTestApp, GENERATE_URL, generate } from '../helpers/app.js';
import { decodeQr, readByAll } from '../helpers/decode.js';

let key: string;

const t = useTestApp();
beforeAll(async () => {
  key = (await t.newCaller('business')).key;
});

const RUNS = 150;

function expectCleanRefusalOrImage(res: { statusCode: number; headers: Record<string, unknown>; body: string }) {
  expect(res.statusCode).toBeLessThan(500);
  if (res.statusCode >= 400) {
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const problem = JSON.parse(res.body) as Record<string, unknown>;
    expect(typeof problem.code).toBe('string');
    expect(res.body).not.toMatch(/\bat .+:\d+:\d+/); // no stack frames
  }
}

const VALID = { content: 'https://example.com', type: 'url', outputFormat: 'png' };

describe('generated bodies', () => {
  it('any JSON value as the body: never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), async (value) => {
        expectCleanRefusalOrImage(await generate(t.app, key, JSON.stringify(value)));
      }),
      { numRuns: RUNS, seed: 1 },
    );
  });

  it('each field replaced by a value of any type: never a 5xx', async () => {
    const field = fc.constantFrom(
      'content',
      'type',
      'outputFormat',
      'size',
      'margin',
      'errorCorrection',
      'darkColor',
      'lightColor',
    );
    await fc.assert(
      fc.asyncProperty(
        field,
        fc.anything({ maxDepth: 2, withNullPrototype: true, withBigInt: false }),
        async (name, value) => {
          let body: string;
          try {
            body = JSON.stringify({ ...VALID, [name]: value });
          } catch {
            return; // not representable as JSON: nothing a client could send
          }
          if (body === undefined) return;
          expectCleanRefusalOrImage(await generate(t.app, key, body));
        },
      ),
      { numRuns: RUNS, seed: 2 },
    );
  });

  it('random content for every type, as strings and as objects: never a 5xx', async () => {
    const type = fc.constantFrom('url', 'text', 'wifi', 'vcard', 'pix', 'whatsapp', 'email', 'sms');
    const content = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.dictionary(
        fc.constantFrom(
          'ssid',
          'password',
          'encryption',
          'hidden',
          'firstName',
          'key',
          'name',
          'city',
          'amount',
          'phone',
          'message',
          'to',
          'subject',
          'body',
          'txid',
        ),
        fc.oneof(fc.string({ maxLength: 60 }), fc.integer(), fc.boolean(), fc.double()),
      ),
    );
    await fc.assert(
      fc.asyncProperty(type, content, async (kind, value) => {
        expectCleanRefusalOrImage(await generate(t.app, key, { content: value, type: kind, outputFormat: 'png' }));
      }),
      { numRuns: RUNS * 2, seed: 3 },
    );
  });

  // Each body with the one answer that is right for it: a refusal with its code, or an image of what JSON.parse reads.
  const deep = '['.repeat(5000) + ']'.repeat(5000);
  const HOSTILE_BODIES: Array<{
    what: string;
    payload: string | Buffer;
    status: number;
    code?: string;
    decodes?: string;
  }> = [
    { what: 'a deeply nested array', payload: deep, status: 400, code: 'invalid_request' },
    {
      what: 'deeply nested content',
      payload: `{"content":${deep},"type":"text","outputFormat":"png"}`,
      status: 400,
      code: 'invalid_content',
    },
    {
      what: 'a 15 kB string',
      payload: JSON.stringify({ ...VALID, content: 'x'.repeat(15_000), type: 'text' }),
      status: 400,
      code: 'invalid_content',
    },
    {
      what: 'invalid UTF-8 (read as U+FFFD, as every JSON parser does)',
      payload: Buffer.concat([
        Buffer.from('{"content":"'),
        Buffer.from([0xff, 0xfe, 0xc3, 0x28]),
        Buffer.from('","type":"text","outputFormat":"png"}'),
      ]),
      status: 200,
      decodes: '\uFFFD\uFFFD\uFFFD(',
    },
    {
      what: 'a __proto__ key',
      payload: '{"__proto__":{"polluted":true},"content":"x","type":"text","outputFormat":"png"}',
      status: 400,
      code: 'invalid_request',
    },
    {
      what: 'a constructor.prototype key',
      payload: '{"constructor":{"prototype":{"polluted":true}},"content":"x","type":"text","outputFormat":"png"}',
      status: 400,
      code: 'invalid_request',
    },
    {
      what: 'a duplicate key (the last one counts)',
      payload: '{"content":"x","type":"text","outputFormat":"png","content":"duplicate"}',
      status: 200,
      decodes: 'duplicate',
    },
    { what: 'a NUL byte', payload: '\u0000', status: 400, code: 'invalid_request' },
    { what: 'null', payload: 'null', status: 400, code: 'invalid_request' },
    { what: 'a bare string', payload: '"just a string"', status: 400, code: 'invalid_request' },
  ];

  it.each(HOSTILE_BODIES)(
    'answers $what with $status $code, and pollutes no prototype',
    async ({ payload, status, code, decodes }) => {
      const res = await t.app.inject({
        method: 'POST',
        url: GENERATE_URL,
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        payload,
      });
      expectCleanRefusalOrImage(res);
      expect(res.statusCode).toBe(status);
      if (code !== undefined) expect(res.json().code).toBe(code);
      if (decodes !== undefined) expect(await decodeQr(res.rawPayload, 'png')).toEqual(readByAll(decodes));
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  );
});

describe('generated headers', () => {
  it('junk API keys, content types and request ids: never a 5xx, and no header injection', async () => {
    const printable = fc.string({
      unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
      maxLength: 120,
    });
    await fc.assert(
      fc.asyncProperty(printable, printable, printable, async (apiKey, contentType, requestId) => {
        const res = await t.app.inject({
          method: 'POST',
          url: GENERATE_URL,
          headers: {
            'x-api-key': apiKey,
            'content-type': contentType || 'application/json',
            'x-request-id': requestId,
          },
          payload: JSON.stringify(VALID),
        });
        expectCleanRefusalOrImage(res);
        const echoed = res.headers['x-request-id'] as string;
        expect(echoed).toMatch(/^[A-Za-z0-9._:-]{1,64}$/);
      }),
      { numRuns: RUNS, seed: 4 },
    );
  });

  it(
    'refuses keys with a bad checksum and keys of the right ' + 'shape that do not exist alike, without a lookup leak',
    async () => {
      const badChecksum = key.slice(0, -1) + (key.endsWith('Z') ? 'Y' : 'Z');
      const unknown = generateApiKey(); // well formed, checksum right, never issued
      const answers = [await generate(t.app, badChecksum, VALID), await generate(t.app, unknown, VALID)];
      for (const res of answers) {
        expect(res.statusCode).toBe(401);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      }
      // The same status, code, type and title for both: nothing says whether the key exists.
      const [a, b] = answers.map((res) => {
        const { status, code, type, title } = res.json() as Record<string, unknown>;
        return { status, code, type, title };
      });
      expect(a).toEqual({
        status: 401,
        code: 'invalid_api_key',
        type: '/problems/invalid_api_key',
        title: expect.any(String),
      });
      expect(b).toEqual(a);
    },
  );
});

describe('capacity and rendering extremes', () => {
  for (const level of ERROR_CORRECTION_LEVELS) {
    it(
      `encodes exactly ${BYTE_CAPACITY[level]} bytes at ` + `${level} and refuses one byte more with the limit`,
      async () => {
        const limit = BYTE_CAPACITY[level];
        const fits = await generate(t.app, key, {
          content: 'a'.repeat(limit),
          type: 'text',
          outputFormat: 'png',
          errorCorrection: level,
          size: 1024,
        });
        expect(fits.statusCode).toBe(200);
        const decoded = await decodeQr(fits.rawPayload, 'png');
        expect(decoded.zxing).toBe('a'.repeat(limit));
        const over = await generate(t.app, key, {
          content: 'a'.repeat(limit + 1),
          type: 'text',
          outputFormat: 'png',
          errorCorrection: level,
        });
        expect(over.statusCode).toBe(422);
        expect(over.json()).toMatchObject({ code: 'content_too_long', limit, length: limit + 1 });
      },
    );
  }

  it('counts multi-byte characters in bytes for the capacity limit', async () => {
    const over = await generate(t.app, key, {
      content: 'é'.repeat(1200),
      type: 'text',
      outputFormat: 'png',
      errorCorrection: 'M',
    }); // 2400 bytes
    expect(over.statusCode).toBe(422);
    expect(over.json().length).toBe(2400);
  });

  it('renders the size and margin extremes, and refuses transparent or inverted colours', async () => {
    for (const extra of [
      { size: 64, margin: 0 },
      { size: 2048, margin: 16 },
      { size: 64, margin: 16, content: 'a' },
    ]) {
      const res = await generate(t.app, key, { ...VALID, ...extra });
      expectCleanRefusalOrImage(res);
    }
    const big = await generate(t.app, key, { ...VALID, size: 2048, margin: 16, outputFormat: 'webp' });
    expect(big.statusCode).toBe(200);
    expect(await decodeQr(big.rawPayload, 'webp')).toEqual(readByAll(VALID.content));
    for (const colours of [
      { darkColor: '#00000000' },
      { darkColor: '#ffffff', lightColor: '#000000' },
      { lightColor: '#000000' },
    ]) {
      const res = await generate(t.app, key, { ...VALID, ...colours });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('invalid_request');
    }
  });
});
