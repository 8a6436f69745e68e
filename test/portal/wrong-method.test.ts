// A portal path with a method its routes do not take is a 405 naming `Allow` (an error page, or problem+json on the
// portal's JSON API), never a 404: the test walks every route the portal registered, as a signed-in owner.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { PortalClient } from '../helpers/portal-client.js';

const t = useTestApp();
let owner: PortalClient;

beforeAll(async () => {
  owner = new PortalClient(t.app);
  await owner.signInLocally('wrong-method@example.com');
});

const CANDIDATES = ['PUT', 'PATCH', 'DELETE', 'POST', 'GET'];

/** Every path the portal serves, with the methods its routes take there (HEAD comes with GET). */
function portalPaths(): Array<{ url: string; methods: string[] }> {
  const byUrl = new Map<string, Set<string>>();
  for (const route of t.app.portalRoutes) {
    const methods = byUrl.get(route.url) ?? new Set<string>();
    methods.add(route.method);
    if (route.method === 'GET') methods.add('HEAD');
    byUrl.set(route.url, methods);
  }
  return [...byUrl].map(([url, methods]) => ({ url, methods: [...methods].sort() }));
}

/** A concrete path a route pattern matches: each parameter and wildcard filled in. */
const concrete = (url: string) => url.replace(/:[A-Za-z]+/g, 'x1').replace(/\*$/, 'x1');

describe('a portal path with a wrong method', () => {
  it('walks a portal that has pages, forms and JSON routes', () => {
    const urls = portalPaths().map((path) => path.url);
    expect(urls).toEqual(expect.arrayContaining(['/portal/plans', '/portal/keys', '/portal/api/keys']));
  });

  it('is 405 with Allow on every path the portal serves', async () => {
    const paths = portalPaths();
    expect(paths.length).toBeGreaterThan(20);
    for (const { url, methods } of paths) {
      const method = CANDIDATES.find((candidate) => !methods.includes(candidate))!;
      const path = concrete(url);
      const res = await owner.request({ method, url: path, headers: { origin: 'http://localhost' } });
      const what = `${method} ${path}`;
      expect(res.statusCode, what).toBe(405);
      // Allow names every method of this route (and any other route the same path matches).
      const allowed = String(res.headers.allow).split(', ');
      expect(allowed, what).toEqual(expect.arrayContaining(methods));
      expect(allowed, what).not.toContain(method);
      if (url.startsWith('/portal/api/')) {
        expect(res.headers['content-type'], what).toMatch(/^application\/problem\+json/);
        expect(res.json(), what).toMatchObject({ status: 405, code: 'method_not_allowed' });
      } else {
        expect(res.headers['content-type'], what).toMatch(/^text\/html/);
        expect(res.body, what).toContain(`${method} is not allowed on ${path}`);
      }
    }
  });

  it('answers a page to a signed-out browser too, and a path no route knows stays 404', async () => {
    const visitor = new PortalClient(t.app);
    const wrong = await visitor.request({ method: 'DELETE', url: '/portal/plans' });
    expect(wrong.statusCode).toBe(405);
    expect(wrong.headers.allow).toBe('GET, HEAD');
    expect(wrong.headers['content-type']).toMatch(/^text\/html/);
    const unknown = await owner.request({ method: 'PUT', url: '/portal/no-such-page' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers.allow).toBeUndefined();
  });
});
