// Every portal route declares what it requires, and a member whose role lacks it is refused (403 insufficient_role)
// before anything happens.
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { PERMISSION_NAMES, roleAllows, roleNeededFor, type Permission } from '../../src/domain/roles.js';
import { requireDeclaredAccess, type PortalRouteAccess } from '../../src/http/portal/account-guard.js';
import { NAV_ITEMS } from '../../src/http/portal/page.js';
import { useTestApp } from '../helpers/app.js';
import { csrfTokenIn, PortalClient } from '../helpers/portal-client.js';

const t = useTestApp();
const API = '/api/v1/QRManager';

/** A member of a fresh account with `role`, signed in to the portal with that account in use. */
async function memberWithRole(role: 'viewer' | 'billing') {
  const owner = await t.newCaller('pro');
  const email = `${role}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;
  const created = await t.app.inject({
    method: 'POST',
    url: `${API}/invitations`,
    headers: { 'x-api-key': owner.key, 'content-type': 'application/json' },
    payload: JSON.stringify({ email, role }),
  });
  const path = new URL(created.json().acceptUrl).pathname;
  const browser = new PortalClient(t.app);
  await browser.signInLocally(email);
  const page = await browser.get(path);
  expect((await browser.postForm(`${path}/accept`, { _csrf: csrfTokenIn(page.body)! })).statusCode).toBe(303);
  return browser;
}

/** A concrete URL for a route pattern (ids that exist nowhere: the role check comes before any lookup). */
const concrete = (url: string) => url.replace(/:format/, 'png').replace(/:[A-Za-z]+/g, 'x1');

describe('portal route access', () => {
  it('every portal route declares its access, and the writes that change an account name a permission', () => {
    const routes = t.app.portalRoutes;
    expect(routes.length).toBeGreaterThan(50);
    const permissions: readonly string[] = PERMISSION_NAMES;
    for (const route of routes) expect([...permissions, 'member', 'public']).toContain(route.access);
    const access = (method: string, url: string) => routes.find((r) => r.method === method && r.url === url)?.access;
    expect(access('POST', '/portal/keys')).toBe('keys.manage');
    expect(access('POST', '/portal/api/keys')).toBe('keys.manage');
    expect(access('POST', '/portal/domains')).toBe('domains.manage');
    expect(access('POST', '/portal/members/invitations')).toBe('members.manage');
    expect(access('GET', '/portal/keys')).toBe('read');
    // Only sign-in, sign-out, assets, the guides and an invitation's landing page are open to anyone.
    expect(
      routes
        .filter((r) => r.access === 'public')
        .map((r) => `${r.method} ${r.url}`)
        .sort(),
    ).toEqual(
      [
        'GET /portal/assets/:name',
        'GET /portal/docs/',
        'GET /portal/docs/:page',
        'GET /portal/invitations/:token',
        'GET /portal/signin',
        'HEAD /portal/assets/:name',
        'HEAD /portal/docs/',
        'HEAD /portal/docs/:page',
        'HEAD /portal/invitations/:token',
        'HEAD /portal/signin',
        'POST /portal/auth/local',
        'POST /portal/signout',
      ].sort(),
    );
  });

  it('a route that declares no access cannot be added', async () => {
    const app = Fastify();
    const table: PortalRouteAccess[] = [];
    app.addHook('onRoute', requireDeclaredAccess(table));
    app.get('/declared', { config: { access: 'read' } }, async () => 'ok');
    expect(() => app.get('/undeclared', async () => 'open')).toThrow(/must declare config.access/);
    await app.close();
  });

  it.each(['viewer', 'billing'] as const)(
    'a %s is refused every route its role lacks, naming the role needed',
    async (role) => {
      const browser = await memberWithRole(role);
      const csrf = (await browser.json('GET', '/portal/api/session')).json().csrfToken as string;
      const lacking = t.app.portalRoutes.filter(
        (r) =>
          r.method !== 'HEAD' &&
          PERMISSION_NAMES.includes(r.access as Permission) &&
          !roleAllows(role, r.access as Permission),
      );
      expect(lacking.length).toBeGreaterThan(10);
      for (const route of lacking) {
        const url = concrete(route.url);
        const res = url.startsWith('/portal/api/')
          ? await browser.json(route.method, url, route.method === 'GET' ? undefined : {}, { 'x-csrf-token': csrf })
          : route.method === 'GET'
            ? await browser.get(url)
            : await browser.postForm(url, { _csrf: csrf });
        expect({ route: `${route.method} ${route.url}`, status: res.statusCode }).toEqual({
          route: `${route.method} ${route.url}`,
          status: 403,
        });
        const needed = roleNeededFor(route.access as Permission);
        if (url.startsWith('/portal/api/'))
          expect(res.json()).toMatchObject({ code: 'insufficient_role', requiredRole: needed });
        else expect(res.body).toContain(`needs the ${needed} role`);
      }
    },
  );

  it('a billing member sees the plans and nothing else: navigation, landing page and every page it opens', async () => {
    const browser = await memberWithRole('billing');
    // Joining lands on the dashboard, which sends a role that reads nothing to the plans.
    const landing = await browser.get('/portal/');
    expect(landing.statusCode).toBe(303);
    expect(landing.headers.location).toBe('/portal/plans');
    const plans = await browser.get('/portal/plans');
    expect(plans.statusCode).toBe(200);
    const links = [...plans.body.matchAll(/<nav aria-label="Portal">([\s\S]*?)<\/nav>/g)]
      .flatMap((nav) => [...nav[1]!.matchAll(/href="([^"]+)"/g)])
      .map((link) => link[1]);
    expect(links).toEqual(['/portal/plans']);

    // Walked from the permission table: every page (GET, not the public ones) either belongs to what billing holds
    // (plans.read, billing.manage, or any member's own: the session, switching) or is refused.
    const pages = t.app.portalRoutes.filter((r) => r.method === 'GET' && r.access !== 'public');
    const opened: string[] = [];
    for (const route of pages) {
      const url = concrete(route.url);
      const res = url.startsWith('/portal/api/') ? await browser.json('GET', url) : await browser.get(url);
      if (res.statusCode < 400) opened.push(`${route.url} ${res.statusCode}`);
      else if (route.access === 'member' || roleAllows('billing', route.access as Permission))
        opened.push(`${route.url} ${res.statusCode}`);
      else expect({ route: route.url, status: res.statusCode }).toEqual({ route: route.url, status: 403 });
    }
    expect(opened.sort()).toEqual(['/portal 303', '/portal/api/session 200', '/portal/plans 200']);
    // The navigation shows an entry exactly when the role opens its page.
    for (const item of NAV_ITEMS) {
      const shown = links.includes(`/portal${item.path}`);
      expect({ item: item.id, shown }).toEqual({
        item: item.id,
        shown: item.access !== 'member' && roleAllows('billing', item.access),
      });
    }
  });
});
