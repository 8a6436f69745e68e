// Every state-changing route of the API and the portal declares what it appends to the audit log, and does append it:
// the test walks the routes the app serves and runs each declared one, through the API with a key or the portal as a
// member.
import type { LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditAction } from '../../src/domain/audit.js';
import type { AuditedRoute } from '../../src/http/plugins/audit-trail.js';
import { useTestApp } from '../helpers/app.js';
import { loopbackProbe } from '../helpers/custom-domain-suite.js';
import { startDnsServer, type DnsServer } from '../helpers/dns-server.js';
import { csrfTokenIn, PortalClient } from '../helpers/portal-client.js';

let dns: DnsServer;
beforeAll(async () => {
  dns = await startDnsServer();
});
afterAll(async () => {
  await dns?.close();
});
const t = useTestApp(() => ({ env: { DNS_SERVERS: dns.address }, domainProbe: loopbackProbe(1) }));

const API = '/api/v1/QRManager';

/** The routes allowed to change state without an entry, each with the reason it gives. */
const EXEMPT = [
  'POST /api/v1/QRManager/decode',
  'POST /api/v1/QRManager/generate',
  'POST /portal/account',
  'POST /portal/api/playground/preview',
  'POST /portal/auth/local',
  'POST /portal/playground',
  'POST /portal/playground/decode',
  'POST /portal/signout',
  'POST /portal/signout/everywhere',
];

interface Owner {
  accountId: string;
  key: string;
  portal: PortalClient;
  csrf: string;
}

let owner: Owner;
let seq = 0;
const unique = (what: string) => `${what}-${++seq}-${Date.now()}`;

async function api(method: string, url: string, body?: unknown): Promise<LightMyRequestResponse> {
  const json = body !== undefined && !Buffer.isBuffer(body);
  return t.app.inject({
    method: method as 'GET',
    url,
    headers: {
      'x-api-key': owner.key,
      ...(json ? { 'content-type': 'application/json' } : Buffer.isBuffer(body) ? { 'content-type': 'image/png' } : {}),
    },
    ...(body === undefined ? {} : { payload: json ? JSON.stringify(body) : (body as Buffer) }),
  });
}
const form = (url: string, fields: Record<string, string> = {}) =>
  owner.portal.postForm(url, { ...fields, _csrf: owner.csrf });
const created = async (res: LightMyRequestResponse) => {
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json() as { id: string };
};
const codeId = async () => (await created(await api('POST', `${API}/codes`, { target: 'https://example.com/a' }))).id;
const logoPng = () =>
  sharp({ create: { width: 64, height: 64, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();
const batchItems = (count: number, size = 256) =>
  Array.from({ length: count }, (_, i) => ({
    content: `https://example.com/b/${i}`,
    type: 'url',
    outputFormat: 'png',
    size,
  }));
async function pendingDomain() {
  const domain = (await created(await api('POST', `${API}/domains`, { hostname: `${unique('d')}.audit.example` }))) as {
    id: string;
    verification: { name: string; value: string };
  };
  dns.setTxt(domain.verification.name, [domain.verification.value]);
  return domain.id;
}
async function invitation(role = 'viewer') {
  const email = `${unique('invitee')}@example.com`;
  const res = await api('POST', `${API}/invitations`, { email, role });
  return { ...(await created(res)), email, acceptUrl: (res.json() as { acceptUrl: string }).acceptUrl };
}
/**
 * Someone invited with `role` joins the owner's account through the accept URL; returns the join's answer and the
 * member.
 */
async function join(role = 'developer') {
  const invited = await invitation(role);
  const browser = new PortalClient(t.app);
  await browser.signInLocally(invited.email);
  const path = new URL(invited.acceptUrl).pathname;
  const page = await browser.get(path);
  const joined = await browser.postForm(`${path}/accept`, { _csrf: csrfTokenIn(page.body)! });
  expect(joined.statusCode).toBe(303);
  const listed = (await api('GET', `${API}/members?limit=100`)).json() as {
    items: Array<{ id: string; email: string }>;
  };
  return { joined, id: listed.items.find((m) => m.email === invited.email)!.id };
}
const member = async (role = 'developer') => (await join(role)).id;

/** How to make each declared route do its change once, as its caller would. */
const RECIPES: Record<string, () => Promise<LightMyRequestResponse>> = {
  'POST /api/v1/QRManager/codes': () => api('POST', `${API}/codes`, { target: 'https://example.com/new' }),
  'PATCH /api/v1/QRManager/codes/:id': async () => api('PATCH', `${API}/codes/${await codeId()}`, { name: 'renamed' }),
  'DELETE /api/v1/QRManager/codes/:id': async () => api('DELETE', `${API}/codes/${await codeId()}`),
  'DELETE /api/v1/QRManager/codes/:id/stats': async () => api('DELETE', `${API}/codes/${await codeId()}/stats`),
  'POST /api/v1/QRManager/batches': () => api('POST', `${API}/batches`, { items: batchItems(1) }),
  'DELETE /api/v1/QRManager/batches/:id': async () =>
    api(
      'DELETE',
      `${API}/batches/${(await created(await api('POST', `${API}/batches`, { items: batchItems(1) }))).id}`,
    ),
  'POST /api/v1/QRManager/designs': () =>
    api('POST', `${API}/designs`, { name: unique('design'), options: { darkColor: '#112233' } }),
  'PATCH /api/v1/QRManager/designs/:id': async () => {
    const design = await created(await api('POST', `${API}/designs`, { name: unique('design'), options: {} }));
    return api('PATCH', `${API}/designs/${design.id}`, { name: unique('renamed') });
  },
  'DELETE /api/v1/QRManager/designs/:id': async () =>
    api(
      'DELETE',
      `${API}/designs/${(await created(await api('POST', `${API}/designs`, { name: unique('d'), options: {} }))).id}`,
    ),
  'POST /api/v1/QRManager/domains': () => api('POST', `${API}/domains`, { hostname: `${unique('d')}.audit.example` }),
  'POST /api/v1/QRManager/domains/:id/verify': async () =>
    api('POST', `${API}/domains/${await pendingDomain()}/verify`),
  'DELETE /api/v1/QRManager/domains/:id': async () => api('DELETE', `${API}/domains/${await pendingDomain()}`),
  'POST /api/v1/QRManager/logos': async () => api('POST', `${API}/logos`, await logoPng()),
  'PATCH /api/v1/QRManager/logos/:id': async () =>
    api('PATCH', `${API}/logos/${(await created(await api('POST', `${API}/logos`, await logoPng()))).id}`, {
      name: 'renamed',
    }),
  'DELETE /api/v1/QRManager/logos/:id': async () =>
    api('DELETE', `${API}/logos/${(await created(await api('POST', `${API}/logos`, await logoPng()))).id}`),
  'POST /api/v1/QRManager/signing-keys': () => api('POST', `${API}/signing-keys`, { name: 'cdn' }),
  'DELETE /api/v1/QRManager/signing-keys/:id': async () =>
    api('DELETE', `${API}/signing-keys/${(await created(await api('POST', `${API}/signing-keys`, { name: 'x' }))).id}`),
  'POST /api/v1/QRManager/webhooks': () =>
    api('POST', `${API}/webhooks`, { url: 'https://hooks.example.com/a', events: ['code.scanned'] }),
  'POST /api/v1/QRManager/webhooks/secret/rotate': () => api('POST', `${API}/webhooks/secret/rotate`),
  'DELETE /api/v1/QRManager/webhooks/:id': async () => {
    const hook = await created(
      await api('POST', `${API}/webhooks`, { url: 'https://hooks.example.com/b', events: ['code.scanned'] }),
    );
    return api('DELETE', `${API}/webhooks/${hook.id}`);
  },
  'DELETE /api/v1/QRManager/keys/:id': async () => {
    const key = (await created(
      await owner.portal.json('POST', '/portal/api/keys', { name: 'k' }, { 'x-csrf-token': owner.csrf }),
    )) as {
      key?: { id: string };
    };
    return api('DELETE', `${API}/keys/${key.key!.id}`);
  },
  'POST /api/v1/QRManager/invitations': () =>
    api('POST', `${API}/invitations`, { email: `${unique('i')}@example.com`, role: 'viewer' }),
  'DELETE /api/v1/QRManager/invitations/:id': async () =>
    api('DELETE', `${API}/invitations/${(await invitation()).id}`),
  'PATCH /api/v1/QRManager/members/:id': async () =>
    api('PATCH', `${API}/members/${await member()}`, { role: 'viewer' }),
  'DELETE /api/v1/QRManager/members/:id': async () => api('DELETE', `${API}/members/${await member()}`),

  'PATCH /api/v1/QRManager/settings': async () => {
    const current = (await api('GET', `${API}/settings`)).json() as { scanPrivacy: string };
    return api('PATCH', `${API}/settings`, { scanPrivacy: current.scanPrivacy === 'none' ? 'city' : 'none' });
  },

  'POST /portal/settings': async () => {
    const current = (await api('GET', `${API}/settings`)).json() as { scanPrivacy: string };
    return form('/portal/settings', { scanPrivacy: current.scanPrivacy === 'none' ? 'city' : 'none' });
  },
  'POST /portal/codes': () => form('/portal/codes', { target: 'https://example.com/portal', name: 'p' }),
  'POST /portal/codes/:id': async () =>
    form(`/portal/codes/${await codeId()}`, { target: 'https://example.com/moved' }),
  'POST /portal/codes/:id/campaign': async () => form(`/portal/codes/${await codeId()}/campaign`, { maxScans: '250' }),
  'POST /portal/codes/:id/status': async () => form(`/portal/codes/${await codeId()}/status`, { status: 'paused' }),
  'POST /portal/codes/:id/delete': async () => form(`/portal/codes/${await codeId()}/delete`),
  'POST /portal/codes/:id/stats/erase': async () => form(`/portal/codes/${await codeId()}/stats/erase`),
  'POST /portal/batches': () =>
    form('/portal/batches', { csv: 'content,type,outputFormat\nhttps://example.com/p,url,png\n' }),
  'POST /portal/batches/:id/cancel': async () => {
    // Large images, many of them: the batch is still running when the cancel arrives.
    const batch = await created(await api('POST', `${API}/batches`, { items: batchItems(80, 2048) }));
    return form(`/portal/batches/${batch.id}/cancel`);
  },
  'POST /portal/domains': () => form('/portal/domains', { hostname: `${unique('p')}.audit.example` }),
  'POST /portal/domains/:id/verify': async () => form(`/portal/domains/${await pendingDomain()}/verify`),
  'POST /portal/domains/:id/delete': async () => form(`/portal/domains/${await pendingDomain()}/delete`),
  'POST /portal/logos': async () =>
    owner.portal.request({
      method: 'POST',
      url: '/portal/logos',
      headers: { 'content-type': 'image/png', 'x-csrf-token': owner.csrf, origin: 'http://localhost' },
      payload: await logoPng(),
    }),
  'POST /portal/logos/:id/rename': async () =>
    form(`/portal/logos/${(await created(await api('POST', `${API}/logos`, await logoPng()))).id}/rename`, {
      name: 'renamed',
    }),
  'POST /portal/logos/:id/delete': async () =>
    form(`/portal/logos/${(await created(await api('POST', `${API}/logos`, await logoPng()))).id}/delete`),
  'POST /portal/signing': () => form('/portal/signing', { name: 'portal-cdn' }),
  'POST /portal/signing/:id/revoke': async () =>
    form(`/portal/signing/${(await created(await api('POST', `${API}/signing-keys`, { name: 'y' }))).id}/revoke`),
  'POST /portal/keys': () => form('/portal/keys', { name: 'portal-key' }),
  'POST /portal/keys/:id/revoke': async () => {
    const key = (
      await owner.portal.json('POST', '/portal/api/keys', { name: 'r' }, { 'x-csrf-token': owner.csrf })
    ).json();
    return form(`/portal/keys/${(key as { key: { id: string } }).key.id}/revoke`);
  },
  'POST /portal/api/keys': () =>
    owner.portal.json('POST', '/portal/api/keys', { name: 'script' }, { 'x-csrf-token': owner.csrf }),
  'DELETE /portal/api/keys/:id': async () => {
    const key = (
      await owner.portal.json('POST', '/portal/api/keys', { name: 's' }, { 'x-csrf-token': owner.csrf })
    ).json();
    return owner.portal.json('DELETE', `/portal/api/keys/${(key as { key: { id: string } }).key.id}`, undefined, {
      'x-csrf-token': owner.csrf,
    });
  },
  'POST /portal/playground/design': () =>
    form('/portal/playground/design', { type: 'url', content: 'https://example.com', designName: unique('look') }),
  'POST /portal/members/invitations': () =>
    form('/portal/members/invitations', { email: `${unique('pi')}@example.com`, role: 'viewer' }),
  'POST /portal/members/invitations/:id/withdraw': async () =>
    form(`/portal/members/invitations/${(await invitation()).id}/withdraw`),
  'POST /portal/members/:id/role': async () => form(`/portal/members/${await member()}/role`, { role: 'viewer' }),
  'POST /portal/members/:id/remove': async () => form(`/portal/members/${await member()}/remove`),
  'POST /portal/invitations/:token/accept': async () => (await join('viewer')).joined,
};

/** The entries of `action` in the owner's account, newest first. */
async function entriesOf(action: AuditAction) {
  return (await t.stores.auditLog.list(owner.accountId, { limit: 500, action })).items;
}

describe('audit coverage', () => {
  beforeAll(async () => {
    const caller = await t.newCaller('business');
    const account = (await t.stores.accounts.findById(caller.accountId))!;
    const portal = new PortalClient(t.app);
    await portal.signInLocally(account.email);
    owner = { accountId: caller.accountId, key: caller.key, portal, csrf: await portal.csrfFrom('/portal/keys') };
  }, 60_000);

  const declared = (): AuditedRoute[] => t.app.auditedRoutes;

  it('every POST, PUT, PATCH and DELETE of the API and the portal declares its audit; only these are exempt', () => {
    const routes = declared();
    expect(routes.length).toBeGreaterThan(50);
    const exempt = routes.filter((r) => !Array.isArray(r.audit)).map((r) => `${r.method} ${r.url}`);
    expect(exempt.sort()).toEqual(EXEMPT);
  });

  it(
    'each declared route appends its action, with the ' + 'caller as actor: an API key, or the signed-in member',
    async () => {
      const missing: string[] = [];
      for (const route of declared()) {
        if (!Array.isArray(route.audit)) continue;
        const name = `${route.method} ${route.url}`;
        const recipe = RECIPES[name];
        if (!recipe) {
          missing.push(`${name}: no recipe in this test`);
          continue;
        }
        const actions = route.audit as readonly AuditAction[];
        const seen = async () => new Set((await Promise.all(actions.map(entriesOf))).flat().map((e) => e.id));
        const before = await seen();
        // Setting up (a code to change, a member to remove) may append entries of its own, by the API key.
        const res = await recipe();
        expect(res.statusCode, `${name}: ${res.body}`).toBeLessThan(400);
        const appended = (await Promise.all(actions.map(entriesOf))).flat().filter((e) => !before.has(e.id));
        const expectedActor = route.url.startsWith('/portal/') ? 'member' : 'api_key';
        if (appended.length === 0) missing.push(`${name}: appended none of ${actions.join(', ')}`);
        else if (!appended.some((e) => e.actor.type === expectedActor))
          missing.push(`${name}: no entry by a ${expectedActor}`);
      }
      expect(missing).toEqual([]);
    },
    240_000,
  );

  it(
    'a join is told by the invitation (the key that made it) and the joining member (its e-mail); no token is ' +
      'kept',
    async () => {
      const invited = await invitation('viewer');
      const token = new URL(invited.acceptUrl).pathname.split('/').at(-1)!;
      const browser = new PortalClient(t.app);
      await browser.signInLocally(invited.email);
      const path = new URL(invited.acceptUrl).pathname;
      await browser.postForm(`${path}/accept`, { _csrf: csrfTokenIn((await browser.get(path)).body)! });
      const [made] = (await entriesOf('invitation.created')).filter((e) => e.target.id === invited.id);
      expect(made).toMatchObject({ actor: { type: 'api_key' }, changes: { email: invited.email, role: 'viewer' } });
      const [joined] = (await entriesOf('member.joined')).filter((e) => e.changes.invitation === invited.id);
      expect(joined).toMatchObject({
        actor: { type: 'member', label: invited.email },
        target: { type: 'member' },
        changes: { role: 'viewer' },
      });
      expect(joined!.actor.id).toBe(joined!.target.id);
      const all = JSON.stringify((await t.stores.auditLog.list(owner.accountId, { limit: 500 })).items);
      expect(all).not.toContain(token);
    },
  );
});
