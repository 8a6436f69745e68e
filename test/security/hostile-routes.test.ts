// Hostile input against every route besides generation (hostile-input.test.ts): never a 5xx, errors in each route's
// shape; and API key refusals.
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStores } from '../../src/adapters/sqlite/sqlite-stores.js';
import { generateApiKey } from '../../src/domain/api-key.js';
import type { KeyStore } from '../../src/domain/ports/key-store.js';
import { revokeKey } from '../../src/services/api-keys.js';
import { createTestApp, generate, type TestApp } from '../helpers/app.js';
import { PortalClient } from '../helpers/portal-client.js';

let t: TestApp;
let cookie: string;
let csrf: string;
/** What the key store was asked for: findActiveCredential's argument on every call. */
const lookups: string[] = [];

beforeAll(async () => {
  const stores = createSqliteStores(':memory:');
  // The real key store, watched: the test sees exactly what authentication hands it.
  const keys = new Proxy(stores.keys, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (property === 'findActiveCredential') {
        return (hash: string) => {
          lookups.push(hash);
          return target.findActiveCredential(hash);
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as KeyStore;
  t = await createTestApp({ stores: { ...stores, keys } });
  const browser = new PortalClient(t.app);
  await browser.signInLocally('hostile-routes@example.com');
  cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  csrf = ((await browser.json('GET', '/portal/api/session')).json() as { csrfToken: string }).csrfToken;
});
afterAll(async () => t?.close());

const RUNS = 250;
const STACK_FRAME = /\bat .+:\d+:\d+/;

/**
 * Every route but POST /api/v1/QRManager/generate; `{x}` is replaced by a generated path segment.
 * Sign-in and sign-out are fuzzed without a valid session and token (with them they would end the session the other
 * runs use).
 */
const ROUTES = [
  ['GET', '/'],
  ['GET', '/healthz'],
  ['GET', '/readyz'],
  ['GET', '/metrics'],
  ['GET', '/openapi.json'],
  ['GET', '/docs'],
  ['GET', '/docs/static/{x}'],
  ['GET', '/{x}'],
  ['GET', '/portal/'],
  ['GET', '/portal/signin'],
  ['GET', '/portal/keys'],
  ['GET', '/portal/qrs'],
  ['GET', '/portal/qrs/{x}.png'],
  ['GET', '/portal/playground'],
  ['GET', '/portal/plans'],
  ['GET', '/portal/assets/{x}'],
  ['GET', '/portal/{x}'],
  ['POST', '/portal/auth/local'],
  ['POST', '/portal/keys'],
  ['POST', '/portal/keys/{x}/revoke'],
  ['POST', '/portal/playground'],
  ['POST', '/portal/signout'],
  ['POST', '/portal/signout/everywhere'],
  ['GET', '/portal/api/session'],
  ['GET', '/portal/api/keys'],
  ['POST', '/portal/api/keys'],
  ['DELETE', '/portal/api/keys/{x}'],
  ['GET', '/portal/api/{x}'],
  ['PUT', '/portal/keys'],
  ['PATCH', '/api/v1/QRManager/generate'],
  ['GET', '/r/{x}'],
  ['POST', '/r/{x}'],
  ['GET', '/api/v1/QRManager/codes'],
  ['POST', '/api/v1/QRManager/codes'],
  ['GET', '/api/v1/QRManager/codes/{x}'],
  ['PATCH', '/api/v1/QRManager/codes/{x}'],
  ['DELETE', '/api/v1/QRManager/codes/{x}'],
  ['GET', '/api/v1/QRManager/codes/{x}/image'],
  ['GET', '/api/v1/QRManager/codes/{x}/stats'],
  ['GET', '/api/v1/QRManager/codes/{x}/stats.csv'],
  ['GET', '/api/v1/QRManager/codes/stats.csv'],
  ['GET', '/api/v1/QRManager/webhooks'],
  ['POST', '/api/v1/QRManager/webhooks'],
  ['DELETE', '/api/v1/QRManager/webhooks/{x}'],
  ['GET', '/portal/codes'],
  ['POST', '/portal/codes'],
  ['GET', '/portal/codes/{x}'],
  ['POST', '/portal/codes/{x}'],
  ['POST', '/portal/codes/{x}/status'],
  ['POST', '/portal/codes/{x}/delete'],
  ['GET', '/portal/codes/{x}/image.png'],
  ['GET', '/i/{x}/png'],
  ['GET', '/i/sk_AAAAAAAAAAAAAAAAAAAA/{x}'],
  ['GET', '/api/v1/QRManager/signing-keys'],
  ['POST', '/api/v1/QRManager/signing-keys'],
  ['DELETE', '/api/v1/QRManager/signing-keys/{x}'],
  ['GET', '/portal/signing'],
  ['POST', '/portal/signing'],
  ['POST', '/portal/signing/{x}/revoke'],
  ['GET', '/portal/api/batch-progress'],
  ['GET', '/portal/codes/{x}/preview.png'],
  ['POST', '/portal/codes/{x}/campaign'],
  ['POST', '/portal/api/playground/preview'],
  ['POST', '/portal/playground/design'],
] as const;

const printable = (maxLength: number) =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength });
const segment = fc.oneof(
  fc.string({ maxLength: 40 }).map(encodeURIComponent),
  fc.constantFrom(
    '..',
    '%2e%2e%2f',
    '%00',
    '%',
    '%zz',
    '%ff%fe',
    'a'.repeat(2_000),
    '__proto__',
    'constructor',
    'portal.css',
    `${'a'.repeat(64)}`,
  ),
);
const FIELDS = [
  '__proto__',
  'constructor',
  'prototype',
  'name',
  'email',
  '_csrf',
  'content',
  'type',
  'outputFormat',
  'size',
  'target',
  'status',
];
const anyValue = fc.oneof(
  printable(40),
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    'x'.repeat(9_000),
    'a@example.com',
    'url',
    'text',
    'png',
    'svg',
    '512',
    '-1',
    'https://example.com',
    'javascript:alert(1)',
    'paused',
  ),
);
/**
 * Bodies shaped like the real forms and JSON, with hostile values: these get past parsing and validation into the
 * handlers.
 */
const plausible = fc.oneof(
  fc.record({ name: anyValue }, { requiredKeys: [] }),
  fc.record({ email: anyValue }),
  fc.record({ target: anyValue, name: anyValue, status: anyValue }, { requiredKeys: [] }),
  fc.record({ type: anyValue, content: anyValue, outputFormat: anyValue, size: anyValue }, { requiredKeys: [] }),
);
const jsonBody = fc.oneof(
  plausible.map((fields) => JSON.stringify(fields)),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? ''),
  fc
    .dictionary(fc.constantFrom(...FIELDS), fc.oneof(anyValue, fc.jsonValue({ maxDepth: 2 })))
    .map((fields) => JSON.stringify(fields)),
  fc.constantFrom(
    '['.repeat(5_000) + ']'.repeat(5_000),
    '{"name":"' + 'x'.repeat(20_000) + '"}',
    '{"__proto__":{"polluted":true},"name":"x"}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '{',
    '',
  ),
);
const formBody = fc.oneof(
  plausible.map((fields) => new URLSearchParams(fields).toString()),
  fc
    .dictionary(fc.oneof(fc.constantFrom(...FIELDS), printable(20)), anyValue)
    .map((fields) => new URLSearchParams(fields).toString()),
  fc.constantFrom(
    '__proto__[polluted]=1&constructor[prototype][polluted]=1&name=a',
    'email=a%ZZ&_csrf=%',
    'name=a&name=b&name[x]=c',
    '&&&==&',
    '',
  ),
);
/** Content type and body, mostly matching (so bodies reach the handlers), sometimes any junk with any type. */
const payload = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(fc.constant('application/json'), jsonBody) },
  { weight: 3, arbitrary: fc.tuple(fc.constant('application/x-www-form-urlencoded'), formBody) },
  {
    weight: 2,
    arbitrary: fc.tuple(
      fc.oneof(
        fc.constantFrom(
          'text/plain',
          'multipart/form-data; boundary=x',
          'application/json; charset=latin1',
          'application/problem+json',
          '',
        ),
        printable(60),
      ),
      fc.oneof(
        jsonBody,
        formBody,
        fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
      ),
    ),
  },
);

type Injected = Awaited<ReturnType<TestApp['app']['inject']>>;

const PROBLEM = /^application\/problem\+json/;
/**
 * What the router answers for a URL it cannot route at all (bad percent-encoding, an over-long parameter), before any
 * portal code runs.
 */
const ROUTER_REFUSAL = /^(the URL path is not valid|a segment of the URL path is too long)/;

/**
 * Never a 5xx, never a stack frame, never an unsafe request id echoed. An error is an HTML page under /portal
 * (but not its /api), unless the router refused the URL itself; everywhere else it is problem+json with a code.
 */
function expectCleanAnswer(path: string, res: Injected) {
  const where = `${path.slice(0, 120)} → ${res.statusCode} ${res.body.slice(0, 300)}`;
  expect(res.statusCode, where).toBeLessThan(500);
  expect(res.headers['x-request-id'], where).toMatch(/^[A-Za-z0-9._:-]{1,64}$/);
  if (res.statusCode < 400) return;
  expect(res.body, where).not.toMatch(STACK_FRAME);
  const contentType = String(res.headers['content-type']);
  // A scan (/r/…) is answered for a phone's browser: its errors are small HTML pages too.
  // `/r/..` is `/` once its dot segments are resolved, as the router sees it: a scan only when it stays under /r/.
  const scanPath = (() => {
    try {
      return new URL(path, 'http://localhost').pathname.startsWith('/r/');
    } catch {
      return path.startsWith('/r/');
    }
  })();
  const page = ((path === '/portal' || path.startsWith('/portal/')) && !path.startsWith('/portal/api/')) || scanPath;
  if (page && !PROBLEM.test(contentType)) {
    expect(contentType, where).toMatch(/^text\/html/);
    return;
  }
  expect(contentType, where).toMatch(PROBLEM);
  const problem = JSON.parse(res.body) as { code?: unknown; detail?: unknown };
  expect(typeof problem.code, where).toBe('string');
  if (page)
    expect(problem, where).toMatchObject({ code: 'invalid_request', detail: expect.stringMatching(ROUTER_REFUSAL) });
}

describe('every route under hostile requests', () => {
  it(
    'generated paths, queries, headers and bodies, signed ' + 'in or not: never a 5xx, errors in the route’s shape',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            route: fc.constantFrom(...ROUTES),
            segment,
            query: fc.oneof(
              fc.constant(''),
              printable(80).map((q) => `?${encodeURI(q)}`),
              fc.constantFrom('?notice=revoked', '?notice=__proto__', '?a[b][c]=1&a=2', '?%ff=%fe'),
            ),
            payload,
            signedIn: fc.oneof(
              { weight: 3, arbitrary: fc.constant(true) },
              { weight: 1, arbitrary: fc.constant(false) },
            ),
            csrfHeader: fc.oneof(
              { weight: 3, arbitrary: fc.constant('valid') },
              { weight: 1, arbitrary: fc.constant(undefined) },
              { weight: 1, arbitrary: printable(60) },
            ),
            accept: fc.constantFrom(undefined, 'text/html', 'application/json', '*/*', 'image/png', ';;;'),
            authorization: fc.oneof(fc.constant(undefined), printable(80)),
            requestId: printable(80),
            extraCookie: fc.oneof(fc.constant(''), printable(60)),
          }),
          async (input) => {
            const [method, template]: readonly [(typeof ROUTES)[number][0], string] = input.route;
            const path = template.replace('{x}', input.segment);
            // These end or replace the session the other runs use: fuzzed without a valid session and token (and, once
            // each, with them below).
            const signOut = template.startsWith('/portal/signout') || template === '/portal/auth/local';
            const signedIn = input.signedIn && !signOut;
            const [contentType, body]: readonly [string, string | Buffer] = input.payload;
            const headers: Record<string, string> = { 'x-request-id': input.requestId, 'content-type': contentType };
            const cookies = [signedIn ? cookie : '', input.extraCookie].filter(Boolean).join('; ');
            if (cookies) headers.cookie = cookies;
            if (input.csrfHeader === 'valid') headers['x-csrf-token'] = signOut ? 'not-the-token' : csrf;
            else if (input.csrfHeader !== undefined) headers['x-csrf-token'] = input.csrfHeader;
            if (input.accept) headers.accept = input.accept;
            if (input.authorization !== undefined) headers.authorization = input.authorization;
            const res = await t.app.inject({
              method,
              url: path + input.query,
              remoteAddress: '127.0.0.1',
              headers,
              ...(method === 'GET' ? {} : { payload: body }),
            });
            expectCleanAnswer(path, res);
          },
        ),
        { numRuns: RUNS, seed: 8 },
      );
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
    60_000,
  );

  it(
    'the signed-in JSON API and forms take deep, huge, invalid UTF-8 and prototype-pollution bodies without a ' +
      '5xx or a polluted prototype',
    async () => {
      const bodies: Array<[string, string | Buffer]> = [
        ['application/json', '['.repeat(5_000) + ']'.repeat(5_000)],
        ['application/json', JSON.stringify({ name: 'x'.repeat(15_000) })],
        [
          'application/json',
          Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), Buffer.from('"}')]),
        ],
        ['application/json', '{"__proto__":{"polluted":true},"name":"proto"}'],
        ['application/json', '{"constructor":{"prototype":{"polluted":true}},"name":"ctor"}'],
        ['application/json', '{"name":"a","name":{"nested":true}}'],
        [
          'application/x-www-form-urlencoded',
          `__proto__[polluted]=1&constructor[prototype][polluted]=1&_csrf=${encodeURIComponent(csrf)}`,
        ],
        [
          'application/x-www-form-urlencoded',
          Buffer.concat([
            Buffer.from('name='),
            Buffer.from([0xff, 0xfe]),
            Buffer.from(`&_csrf=${encodeURIComponent(csrf)}`),
          ]),
        ],
        [
          'application/x-www-form-urlencoded',
          `content=${'%ff'.repeat(2_000)}&type=text&outputFormat=png&_csrf=${encodeURIComponent(csrf)}`,
        ],
      ];
      for (const [method, url] of [
        ['POST', '/portal/api/keys'],
        ['DELETE', '/portal/api/keys/x'],
        ['POST', '/portal/keys'],
        ['POST', '/portal/playground'],
        ['POST', '/portal/auth/local'],
      ] as const) {
        for (const [type, payload] of bodies) {
          const res = await t.app.inject({
            method,
            url,
            remoteAddress: '127.0.0.1',
            headers: { cookie, 'x-csrf-token': csrf, 'content-type': type },
            payload,
          });
          expectCleanAnswer(url, res);
        }
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
    },
  );

  it('never turns CR/LF in a header that is echoed (X-Request-Id) into a response header', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as { port: number };
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port });
        let answer = '';
        socket.setTimeout(5_000, () => socket.destroy(new Error('no answer within 5 s')));
        socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
        socket.on('end', () => resolve(answer));
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
        socket.write(request);
      });
    // Refused by the HTTP parser (400) or split into a request header of its own: either way nothing is reflected.
    for (const injected of [
      'abc\r\nSet-Cookie: pwned=1',
      'abc\rSet-Cookie: pwned=1',
      'abc\nSet-Cookie: pwned=1',
      'abc\u0000Set-Cookie: pwned=1',
    ]) {
      const answer = await raw(
        `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: ${injected}\r\nConnection: close\r\n\r\n`,
      );
      const head = answer.split('\r\n\r\n')[0]!;
      expect(head).toMatch(/^HTTP\/1\.1 (200|400) /);
      expect(head.toLowerCase()).not.toContain('pwned');
    }
    // Bytes outside the safe set are not echoed: the server makes its own id instead.
    const answer = await raw(
      `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: caf\u00e9<script>\r\nConnection: close\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).not.toContain('<script>');
  });
});

describe('API key refusals', () => {
  const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
  const VALID = { content: 'https://example.com', type: 'url', outputFormat: 'png' };
  /** The problem minus what differs per request. */
  const shape = (res: Injected) => {
    const { requestId: _id, instance: _instance, ...rest } = res.json() as Record<string, unknown>;
    return { status: res.statusCode, contentType: res.headers['content-type'], problem: rest };
  };

  it(
    'answer an unknown key and a revoked key with the identical 401 problem, and a malformed one with the same ' +
      'code',
    async () => {
      const caller = await t.newCaller('free');
      const revoked = await t.newCaller('free');
      await revokeKey({ ...t.stores, keyPepper: undefined, clock: () => new Date() }, revoked.accountId, revoked.keyId);
      const unknown = shape(await generate(t.app, generateApiKey(), VALID));
      expect(unknown).toMatchObject({ status: 401, problem: { code: 'invalid_api_key' } });
      expect(shape(await generate(t.app, revoked.key, VALID))).toEqual(unknown);
      for (const malformed of [
        caller.key.slice(0, -1) + (caller.key.endsWith('A') ? 'B' : 'A'),
        caller.key.toUpperCase(),
        `${caller.key}x`,
        'qrm_live_',
        'Bearer ' + caller.key,
      ]) {
        const refused = shape(await generate(t.app, malformed, VALID));
        expect(refused).toMatchObject({
          status: 401,
          contentType: unknown.contentType,
          problem: { code: 'invalid_api_key', title: unknown.problem.title },
        });
      }
    },
  );

  it(
    'are decided by the key’s SHA-256 looked up in the store: no secret reaches it or is compared in code; ' +
      'malformed keys cost no lookup',
    async () => {
      const caller = await t.newCaller('free');
      const unknown = generateApiKey();
      const malformed = caller.key.slice(0, -1) + (caller.key.endsWith('A') ? 'B' : 'A');
      lookups.length = 0;
      expect((await generate(t.app, caller.key, VALID)).statusCode).toBe(200);
      expect((await generate(t.app, unknown, VALID)).statusCode).toBe(401);
      expect((await generate(t.app, malformed, VALID)).statusCode).toBe(401);
      expect(lookups).toEqual([sha256(caller.key), sha256(unknown)]);
    },
  );
});
