// Every API route holds to the same rules: unknown query parameters are refused by name, and a wrong method is 405 with Allow.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';

const API = '/api/v1/QRManager';
const t = useTestApp();
let key: string;
beforeAll(async () => {
  key = (await t.newCaller('pro')).key;
});

const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });

describe('unknown query parameters', () => {
  it.each(['/codes', '/batches', '/logos', '/designs', '/domains', '/webhooks', '/signing-keys'])(
    'GET %s?foo=1 is 400 invalid_request naming foo',
    async (path) => {
      const res = await get(`${API}${path}?foo=1`);
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ code: 'invalid_request', errors: [{ field: 'foo', detail: 'unknown field' }] });
    },
  );

  it('a route that declares no query refuses one too', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: `${API}/codes`,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: { target: 'https://example.com/' },
    });
    const res = await get(`${API}/codes/${created.json().id}?verbose=true`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_request', errors: [{ field: 'verbose' }] });
  });
});

describe('a known path with a wrong method', () => {
  it('PUT /codes/{id} is 405 method_not_allowed with Allow', async () => {
    const res = await t.app.inject({ method: 'PUT', url: `${API}/codes/code_x`, headers: { 'x-api-key': key } });
    expect(res.statusCode).toBe(405);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers.allow).toBe('DELETE, GET, HEAD, PATCH');
    expect(res.json()).toMatchObject({ status: 405, code: 'method_not_allowed', type: '/problems/method_not_allowed' });
  });

  it('DELETE /generate is 405 allowing POST only', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: `${API}/generate`, headers: { 'x-api-key': key } });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
  });

  it('an unknown path stays 404 not_found, without Allow', async () => {
    const res = await t.app.inject({ method: 'PUT', url: `${API}/nothing-here/at/all`, headers: { 'x-api-key': key } });
    expect(res.statusCode).toBe(404);
    expect(res.headers.allow).toBeUndefined();
    expect(res.json()).toMatchObject({ code: 'not_found' });
  });
});

describe('one list shape', () => {
  const post = (caller: string, path: string, body: unknown) =>
    t.app.inject({ method: 'POST', url: `${API}${path}`, headers: { 'x-api-key': caller, 'content-type': 'application/json' }, payload: JSON.stringify(body) });

  async function walk(caller: string, path: string): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const res = await t.app.inject({ method: 'GET', url: `${API}${path}?limit=2${cursor ? `&cursor=${cursor}` : ''}`, headers: { 'x-api-key': caller } });
      expect(res.statusCode).toBe(200);
      const page = res.json() as { items: Array<{ id: string }>; nextCursor: string | null };
      expect(Object.keys(page).sort()).toEqual(['items', 'nextCursor']);
      expect(page.items.length).toBeLessThanOrEqual(2);
      ids.push(...page.items.map((item) => item.id));
      cursor = page.nextCursor;
      if (cursor === null) return ids;
    }
    throw new Error(`${path} never reached its last page`);
  }

  it.each([
    ['/signing-keys', { name: 'k' }],
    ['/designs', { name: 'd', options: { margin: 2 } }],
    ['/codes', { target: 'https://example.com/' }],
  ])('%s pages through every item once, newest first, with ?limit=&cursor=', async (path, body) => {
    const caller = (await t.newCaller('pro')).key;
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      t.clock.now = new Date(t.clock.now.getTime() + 1_000);
      created.push(((await post(caller, path, body)).json() as { id: string }).id);
    }
    expect(await walk(caller, path)).toEqual([...created].reverse());
  });

  it.each(['/codes', '/batches', '/logos', '/designs', '/domains', '/webhooks', '/signing-keys'])('%s answers {items, nextCursor}', async (path) => {
    const res = await get(`${API}${path}`);
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json()).sort()).toEqual(['items', 'nextCursor']);
  });

  it('a cursor this API did not give out is 400 naming cursor', async () => {
    const res = await get(`${API}/designs?cursor=bm90LWEtY3Vyc29y`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_request', errors: [{ field: 'cursor' }] });
  });
});
