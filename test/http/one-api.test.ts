// Every API route holds to the same rules: unknown query parameters are refused by name, and a wrong method is 405 with
// Allow.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { scan } from '../helpers/codes.js';

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
      expect(res.json()).toMatchObject({
        code: 'invalid_request',
        errors: [{ field: 'foo', detail: 'unknown field' }],
      });
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
    t.app.inject({
      method: 'POST',
      url: `${API}${path}`,
      headers: { 'x-api-key': caller, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });

  async function walk(caller: string, path: string): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const res = await t.app.inject({
        method: 'GET',
        url: `${API}${path}?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        headers: { 'x-api-key': caller },
      });
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

  it.each(['/codes', '/batches', '/logos', '/designs', '/domains', '/webhooks', '/signing-keys'])(
    '%s answers {items, nextCursor}',
    async (path) => {
      const res = await get(`${API}${path}`);
      expect(res.statusCode).toBe(200);
      expect(Object.keys(res.json()).sort()).toEqual(['items', 'nextCursor']);
    },
  );

  it('a cursor this API did not give out is 400 naming cursor', async () => {
    const res = await get(`${API}/designs?cursor=bm90LWEtY3Vyc29y`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_request', errors: [{ field: 'cursor' }] });
  });
});

describe('finding codes', () => {
  const post = (caller: string, url: string, body: unknown, method: 'POST' | 'PATCH' = 'POST') =>
    t.app.inject({
      method,
      url,
      headers: { 'x-api-key': caller, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  const ids = async (caller: string, query: string) => {
    const res = await t.app.inject({ method: 'GET', url: `${API}/codes?${query}`, headers: { 'x-api-key': caller } });
    expect(res.statusCode).toBe(200);
    return (res.json() as { items: Array<{ id: string }> }).items.map((code) => code.id);
  };

  it(
    'searches name, target and slug (?q=), filters by status, slug and domain (id or hostname), and sorts by ' +
      'creation',
    async () => {
      const { key: caller, accountId } = await t.newCaller('pro');
      const made: Record<string, { id: string; slug: string }> = {};
      for (const [label, body] of [
        ['poster', { target: 'https://shop.example/Spring-Sale', name: 'Poster' }],
        ['menu', { target: 'https://cafe.example/menu', name: 'Spring menu' }],
        ['plain', { target: 'https://example.com/other' }],
      ] as const) {
        t.clock.now = new Date(t.clock.now.getTime() + 1_000);
        made[label] = (await post(caller, `${API}/codes`, body)).json();
      }
      expect((await post(caller, `${API}/codes/${made.menu!.id}`, { status: 'paused' }, 'PATCH')).statusCode).toBe(200);

      expect(await ids(caller, 'q=SPRING')).toEqual([made.menu!.id, made.poster!.id]);
      expect(await ids(caller, 'q=spring&sort=created')).toEqual([made.poster!.id, made.menu!.id]);
      expect(await ids(caller, 'q=spring&status=active')).toEqual([made.poster!.id]);
      expect(await ids(caller, `slug=${made.plain!.slug}`)).toEqual([made.plain!.id]);

      const domain = await t.stores.domains.createWithinLimit(
        {
          id: 'dom_filterfilterfilter12',
          accountId,
          hostname: 'go.filter-by-name.example',
          token: 'x'.repeat(32),
          createdAt: t.clock.now,
        },
        null,
      );
      if (typeof domain === 'string') throw new Error(domain);
      await t.stores.domains.activate(domain.id, t.clock.now);
      const vanity = await post(caller, `${API}/codes`, {
        target: 'https://example.com/v',
        domain: 'Go.Filter-By-Name.example',
        slug: 'spring-sale',
      });
      expect(vanity.statusCode).toBe(201);
      expect(vanity.json()).toMatchObject({
        domain: domain.id,
        shortUrl: 'https://go.filter-by-name.example/spring-sale',
      });
      expect(await ids(caller, 'domain=go.filter-by-name.example')).toEqual([vanity.json().id]);
      expect(await ids(caller, `domain=${domain.id}`)).toEqual([vanity.json().id]);

      const stranger = (await t.newCaller('pro')).key;
      const theirs = await t.app.inject({
        method: 'GET',
        url: `${API}/codes?domain=go.filter-by-name.example`,
        headers: { 'x-api-key': stranger },
      });
      expect(theirs.statusCode).toBe(400);
      expect(theirs.json()).toMatchObject({ code: 'invalid_request', errors: [{ field: 'domain' }] });
    },
  );

  it('shows each code its scans, all time and the last 30 days, and sorts by them a page at a time', async () => {
    const { key: caller } = await t.newCaller('pro');
    const today = t.clock.now;
    const made: Record<string, { id: string; slug: string }> = {};
    for (const label of ['loved', 'recent', 'quiet', 'silent'])
      made[label] = (await post(caller, `${API}/codes`, { target: `https://example.com/${label}` })).json();
    const scanned = async (label: string, times: number) => {
      for (let i = 0; i < times; i++) expect((await scan(t.app, made[label]!.slug)).statusCode).toBe(302);
    };
    t.clock.now = new Date(today.getTime() - 40 * 86_400_000);
    await scanned('loved', 3);
    t.clock.now = new Date(today.getTime() - 29 * 86_400_000);
    await scanned('loved', 1);
    t.clock.now = today;
    await scanned('loved', 1);
    await scanned('recent', 3);
    await t.stores.scans.flush();

    const read = (
      await t.app.inject({ method: 'GET', url: `${API}/codes/${made.loved!.id}`, headers: { 'x-api-key': caller } })
    ).json();
    expect(read.scans).toEqual({ allTime: 5, last30Days: 2 });
    const scansOf = async (query: string) => {
      const res = await t.app.inject({ method: 'GET', url: `${API}/codes?${query}`, headers: { 'x-api-key': caller } });
      return (res.json() as { items: Array<{ id: string; scans: unknown }> }).items.map((code) => [
        code.id,
        code.scans,
      ]);
    };
    const ties = [made.quiet!.id, made.silent!.id].sort();
    expect(await scansOf('sort=-scans')).toEqual([
      [made.loved!.id, { allTime: 5, last30Days: 2 }],
      [made.recent!.id, { allTime: 3, last30Days: 3 }],
      [ties[1], { allTime: 0, last30Days: 0 }],
      [ties[0], { allTime: 0, last30Days: 0 }],
    ]);

    const walked = async (sort: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 6; pages++) {
        const res = await t.app.inject({
          method: 'GET',
          url: `${API}/codes?sort=${sort}&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
          headers: { 'x-api-key': caller },
        });
        const page = res.json() as { items: Array<{ id: string }>; nextCursor: string | null };
        seen.push(...page.items.map((code) => code.id));
        cursor = page.nextCursor;
        if (cursor === null) return seen;
      }
      throw new Error('never reached the last page');
    };
    expect(await walked('-scans')).toEqual([made.loved!.id, made.recent!.id, ties[1], ties[0]]);
    expect(await walked('scans')).toEqual([ties[0], ties[1], made.recent!.id, made.loved!.id]);

    const byCreation = (
      await t.app.inject({ method: 'GET', url: `${API}/codes?limit=1`, headers: { 'x-api-key': caller } })
    ).json().nextCursor;
    const mixed = await t.app.inject({
      method: 'GET',
      url: `${API}/codes?sort=-scans&cursor=${byCreation}`,
      headers: { 'x-api-key': caller },
    });
    expect(mixed.statusCode).toBe(400);
    expect(mixed.json()).toMatchObject({ code: 'invalid_request', errors: [{ field: 'cursor' }] });
  });

  it('refuses a sort or status it does not know', async () => {
    expect((await get(`${API}/codes?sort=name`)).statusCode).toBe(400);
    expect((await get(`${API}/codes?status=gone`)).statusCode).toBe(400);
  });
});
