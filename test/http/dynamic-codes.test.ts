// Dynamic codes in the embedded default: the API, the redirect, exact counting under concurrency, limits and tenant
// isolation.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorStatus } from '../../src/domain/errors.js';
import { GENERATE_ERRORS } from '../../src/http/api/v1/generate.route.js';
import { createTestApp, generate, type TestApp } from '../helpers/app.js';
import { codesApi, scan, scanByFortyVisitors, type CodeJson } from '../helpers/codes.js';
import { decodeQr, readByAll } from '../helpers/decode.js';
import { waitFor } from '../helpers/wait.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

async function statsOf(key: string, id: string, query = '') {
  const res = await codesApi(t.app, key).stats(id, query);
  expect(res.statusCode).toBe(200);
  return res.json() as {
    totals: { scans: number; uniqueScanners: number };
    series: Array<{ at: string; scans: number; uniqueScanners: number }>;
    devices: Record<string, number>;
    languages: Array<{ language: string; scans: number }>;
    uniqueScanners: { counting: string; relativeStandardError: number };
  };
}

describe('the dynamic-code API', () => {
  it('creates a code whose shortUrl names the server and whose fields are all there', async () => {
    const { key } = await t.newCaller('pro');
    const res = await codesApi(t.app, key).create({ target: 'https://example.com/menu', name: 'Table menu' });
    expect(res.statusCode).toBe(201);
    const code = res.json() as CodeJson;
    expect(code).toMatchObject({ target: 'https://example.com/menu', name: 'Table menu', status: 'active' });
    expect(code.slug).toMatch(/^[A-Za-z0-9]{8}$/);
    expect(code.shortUrl).toBe(`http://localhost/r/${code.slug}`);
    expect(new Date(code.createdAt).getTime()).not.toBeNaN();
    expect(res.headers.location).toBe(`/api/v1/QRManager/codes/${code.id}`);
  });

  it('builds shortUrl on the address the server listens on, never on the Host header the client sent', async () => {
    // The Host is one the operator allows (else the API would not answer on it at all), and still not echoed.
    const listening = await createTestApp({ env: { ALLOWED_HOSTS: 'attacker.example' } });
    try {
      const { key } = await listening.newCaller('pro');
      await listening.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = listening.app.server.address() as { port: number };
      const body = JSON.stringify({ target: 'https://example.com/host' });
      const answer = await new Promise<string>((resolve, reject) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/api/v1/QRManager/codes',
            headers: { host: 'attacker.example', 'content-type': 'application/json', 'x-api-key': key },
          },
          (res) => {
            let text = '';
            res.on('data', (chunk: Buffer) => (text += chunk.toString()));
            res.on('end', () => resolve(text));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      const code = JSON.parse(answer) as CodeJson;
      expect(code.shortUrl).toBe(`http://127.0.0.1:${port}/r/${code.slug}`);
    } finally {
      await listening.close();
    }
  });

  it('refuses a javascript:, relative or credential-bearing target with 400 naming the field', async () => {
    const { key } = await t.newCaller('pro');
    for (const target of [
      'javascript:alert(1)',
      '/relative/path',
      'ftp://example.com/file',
      'https://user:pw@example.com/',
      'https://exa mple.com',
      `https://example.com/${'a'.repeat(2100)}`,
    ]) {
      const res = await codesApi(t.app, key).create({ target });
      expect(res.statusCode, target).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ code: 'invalid_request', errors: [{ field: 'target' }] });
    }
  });

  it('lists codes newest first, a page at a time', async () => {
    const { key } = await t.newCaller('pro');
    const api = codesApi(t.app, key);
    const made: CodeJson[] = [];
    for (let i = 0; i < 5; i++) {
      t.clock.now = new Date(Date.UTC(2026, 0, 1, 0, 0, i));
      made.push(await api.created(`https://example.com/${i}`));
    }
    t.clock.now = new Date();
    const first = (await api.list('?limit=2')).json() as { items: CodeJson[]; nextCursor: string };
    expect(first.items.map((c) => c.id)).toEqual([made[4]!.id, made[3]!.id]);
    const second = (await api.list(`?limit=2&cursor=${first.nextCursor}`)).json() as {
      items: CodeJson[];
      nextCursor: string;
    };
    const third = (await api.list(`?limit=2&cursor=${second.nextCursor}`)).json() as {
      items: CodeJson[];
      nextCursor: string | null;
    };
    expect([...second.items, ...third.items].map((c) => c.id)).toEqual([made[2]!.id, made[1]!.id, made[0]!.id]);
    expect(third.nextCursor).toBeNull();
    expect((await api.list('?cursor=not-a-cursor')).statusCode).toBe(400);
  });

  it("answers 404 for another account's code, on every operation", async () => {
    const owner = codesApi(t.app, (await t.newCaller('pro')).key);
    const other = codesApi(t.app, (await t.newCaller('pro')).key);
    const code = await owner.created('https://example.com/mine');
    for (const res of [
      await other.get(code.id),
      await other.patch(code.id, { target: 'https://evil.example/' }),
      await other.remove(code.id),
      await other.image(code.id),
      await other.stats(code.id),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'not_found' });
    }
    expect(((await owner.get(code.id)).json() as CodeJson).target).toBe('https://example.com/mine');
  });

  it("holds the plan's active-code limit under concurrent creation, and deleting frees a place", async () => {
    const api = codesApi(t.app, (await t.newCaller('free')).key);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => api.create({ target: `https://example.com/${i}` })),
    );
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 409)).toHaveLength(7);
    expect(results.find((r) => r.statusCode === 409)!.json()).toMatchObject({ code: 'code_limit_reached', limit: 5 });
    const first = results.find((r) => r.statusCode === 201)!.json() as CodeJson;
    expect((await api.remove(first.id)).statusCode).toBe(204);
    expect((await api.create({ target: 'https://example.com/again' })).statusCode).toBe(201);
  });
});

describe('GET /r/{slug}', () => {
  it('redirects with 302 to the current target, no-store and no-referrer, and follows a PATCH at once', async () => {
    const api = codesApi(t.app, (await t.newCaller('pro')).key);
    const code = await api.created('https://example.com/first');
    const res = await scan(t.app, code.slug);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('https://example.com/first');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect((await api.patch(code.id, { target: 'https://example.org/second' })).statusCode).toBe(200);
    expect((await scan(t.app, code.slug)).headers.location).toBe('https://example.org/second');
  });

  it(
    'answers a paused or deleted code with a small HTML ' + '410, and an unknown slug with 404, without a stack',
    async () => {
      const api = codesApi(t.app, (await t.newCaller('pro')).key);
      const paused = await api.created('https://example.com/paused');
      expect(((await api.patch(paused.id, { status: 'paused' })).json() as CodeJson).status).toBe('paused');
      const gone = await scan(t.app, paused.slug);
      expect(gone.statusCode).toBe(410);
      expect(gone.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(gone.headers.location).toBeUndefined();
      expect(gone.body).toContain('no longer active');
      expect((await api.patch(paused.id, { status: 'active' })).statusCode).toBe(200);
      expect((await scan(t.app, paused.slug)).statusCode).toBe(302);

      const deleted = await api.created('https://example.com/deleted');
      await api.remove(deleted.id);
      expect((await scan(t.app, deleted.slug)).statusCode).toBe(410);
      expect((await api.get(deleted.id)).statusCode).toBe(404);

      for (const slug of ['zzzzzzzz', 'short', '..%2F..%2Fetc', 'a'.repeat(90), '%00%00']) {
        const res = await scan(t.app, slug);
        expect(res.statusCode, slug).toBe(404);
        expect(res.headers.location).toBeUndefined();
        expect(res.body).not.toMatch(/\bat .+:\d+:\d+/);
      }
    },
  );

  it('counts N concurrent scans exactly, unique scanners exactly, with the device and language split', async () => {
    const key = (await t.newCaller('pro')).key;
    const code = await codesApi(t.app, key).created('https://example.com/counted');
    const N = 200;
    // 40 visitors (address × device), each scanning 5 times; languages alternate.
    const answers = await scanByFortyVisitors(
      () => t.app,
      code.slug,
      '10.0.0',
      (i) => (i % 2 === 0 ? 'pt-BR,pt;q=0.9' : 'en-US'),
    );
    expect(answers).toHaveLength(N);
    expect(answers.every((a) => a.statusCode === 302)).toBe(true);
    await waitFor('every scan recorded', async () => (await statsOf(key, code.id)).totals.scans >= N || undefined);
    await t.stores.scans.flush();
    const stats = await statsOf(key, code.id);
    expect(stats.totals).toEqual({ scans: N, uniqueScanners: 40, bots: 0 });
    expect(stats.devices).toEqual({ ios: 50, android: 50, desktop: 50, other: 50 });
    expect(stats.languages).toEqual([
      { language: 'en', scans: 100 },
      { language: 'pt', scans: 100 },
    ]);
    expect(stats.uniqueScanners).toEqual({ counting: 'exact', relativeStandardError: 0 });
    expect(stats.series).toHaveLength(30);
    expect(stats.series.at(-1)).toMatchObject({ scans: N, uniqueScanners: 40 });
  });

  it('counts nothing for 410, 404 and API requests, and stats refuse a bad range', async () => {
    const key = (await t.newCaller('pro')).key;
    const api = codesApi(t.app, key);
    const code = await api.created('https://example.com/quiet');
    await api.patch(code.id, { status: 'paused' });
    await scan(t.app, code.slug);
    await t.stores.scans.flush();
    expect((await statsOf(key, code.id)).totals.scans).toBe(0);
    expect((await api.stats(code.id, '?from=2026-02-30')).statusCode).toBe(400);
    expect((await api.stats(code.id, '?from=2026-03-02&to=2026-03-01')).statusCode).toBe(400);
    expect((await api.stats(code.id, '?from=2020-01-01&to=2026-01-01')).statusCode).toBe(400);
    expect((await statsOf(key, code.id, '?from=2026-03-01&to=2026-03-03')).series.map((d) => d.at)).toEqual([
      '2026-03-01T00:00:00.000Z',
      '2026-03-02T00:00:00.000Z',
      '2026-03-03T00:00:00.000Z',
    ]);
  });
});

describe("a dynamic code's image", () => {
  it('decodes (zbar and ZXing) to its shortUrl, is metered like a generation, and svg follows the plan', async () => {
    const free = await t.newCaller('free');
    const api = codesApi(t.app, free.key);
    const code = await api.created('https://example.com/printed');
    for (const format of ['png', 'webp'] as const) {
      const res = await api.image(code.id, `?outputFormat=${format}&size=256`);
      expect(res.statusCode).toBe(200);
      expect(await decodeQr(res.rawPayload, format)).toEqual(readByAll(code.shortUrl));
    }
    const res = await api.image(code.id);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['x-ratelimit-remaining']).toBe('497');
    expect((await api.image(code.id, '?outputFormat=svg')).json()).toMatchObject({ code: 'plan_upgrade_required' });
    expect((await api.image(code.id, '?size=5')).statusCode).toBe(400);
  });

  it('leads a real HTTP client from the decoded short URL to the target', async () => {
    const landed: string[] = [];
    const target: Server = createServer((req, res) => {
      landed.push(req.url ?? '');
      res.end('landed');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/landing?from=qr`;
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const base = new URL(address);
      const key = (await t.newCaller('pro')).key;
      const created = await fetch(`${address}/api/v1/QRManager/codes`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ target: targetUrl }),
      });
      const code = (await created.json()) as CodeJson;
      expect(code.shortUrl).toBe(`http://${base.host}/r/${code.slug}`);
      const image = await fetch(`${address}/api/v1/QRManager/codes/${code.id}/image`, {
        headers: { 'x-api-key': key },
      });
      const decoded = await decodeQr(new Uint8Array(await image.arrayBuffer()), 'png');
      expect(decoded.zbar).toBe(code.shortUrl);
      const followed = await fetch(decoded.zxing);
      expect(await followed.text()).toBe('landed');
      expect(followed.url).toBe(targetUrl);
      expect(landed).toEqual(['/landing?from=qr']);
    } finally {
      await new Promise((resolve) => target.close(resolve));
    }
  });
});

describe('the dynamic-code endpoints under hostile input, with a valid key', () => {
  it('never answer a 5xx or a stack: every refusal is problem+json with a code', async () => {
    const key = (await t.newCaller('pro')).key;
    const api = codesApi(t.app, key);
    const code = await api.created('https://example.com/fuzzed');
    const value = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom(
        'javascript:alert(1)',
        'https://example.com/ok',
        'data:text/html,x',
        'http://[::1',
        'x'.repeat(5_000),
        'paused',
        'disabled',
        '__proto__',
      ),
      fc.integer(),
      fc.constant(null),
      fc.jsonValue({ maxDepth: 2 }),
    );
    const body = fc.dictionary(
      fc.constantFrom('target', 'name', 'status', '__proto__', 'constructor', 'extra'),
      value,
      { maxKeys: 4 },
    );
    const query = fc.dictionary(
      fc.constantFrom('from', 'to', 'limit', 'cursor', 'outputFormat', 'size', 'margin', 'darkColor'),
      fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('2026-02-30', '0', '-1', '9999999', 'svg', '#000')),
      { maxKeys: 3 },
    );
    const id = fc.oneof(
      fc.constant(code.id),
      fc.string({ maxLength: 30 }).map(encodeURIComponent),
      fc.constantFrom('..', '%00', 'dyn_'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('create', 'patch', 'list', 'get', 'stats', 'image'),
        body,
        query,
        id,
        async (operation, fields, params, codeId) => {
          const qs = `?${new URLSearchParams(params as Record<string, string>).toString()}`;
          const res =
            operation === 'create'
              ? await api.create(fields)
              : operation === 'patch'
                ? await api.patch(codeId, fields)
                : operation === 'list'
                  ? await api.list(qs)
                  : operation === 'get'
                    ? await api.get(codeId)
                    : operation === 'stats'
                      ? await api.stats(codeId, qs)
                      : await api.image(codeId, qs);
          expect(res.statusCode, res.body.slice(0, 200)).toBeLessThan(500);
          if (res.statusCode >= 400) {
            expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
            expect(typeof (res.json() as { code: unknown }).code).toBe('string');
            expect(res.body).not.toMatch(/\bat .+:\d+:\d+/);
          }
        },
      ),
      { numRuns: 150, seed: 16 },
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Found by this property: an unknown field named like an Object.prototype member once crashed the error mapping
    // (generate too).
    const generated = await generate(t.app, key, { content: 'x', type: 'text', outputFormat: 'png', constructor: 0 });
    expect(generated.json()).toMatchObject({
      status: 400,
      code: 'invalid_request',
      errors: [{ field: 'constructor', detail: 'unknown field' }],
    });
  }, 60_000);

  it('are documented in the OpenAPI document, the image with every problem a generation can answer', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<
        string,
        Record<string, { operationId: string; responses: Record<string, { description: string }> }>
      >;
    };
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/QRManager/codes',
        '/api/v1/QRManager/codes/{id}',
        '/api/v1/QRManager/codes/{id}/image',
        '/api/v1/QRManager/codes/{id}/stats',
        '/r/{slug}',
      ]),
    );
    expect(document.paths['/api/v1/QRManager/codes']!.post!.operationId).toBe('createDynamicCode');
    const image = document.paths['/api/v1/QRManager/codes/{id}/image']!.get!;
    for (const code of [...GENERATE_ERRORS, 'not_found'] as const)
      expect(image.responses[String(errorStatus(code))]?.description, code).toContain(`\`${code}\``);
    expect(document.paths['/api/v1/QRManager/codes/{id}']!.patch!.responses['409']!.description).toContain(
      '`code_disabled`',
    );
  });
});
