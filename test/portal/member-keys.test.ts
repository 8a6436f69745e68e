// A member's keys: made only with the scopes its role allows, revoked when it leaves or when a new role no longer
// allows them, and shown to owners and admins per member in the portal.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { csrfTokenIn, PortalClient } from '../helpers/portal-client.js';

const t = useTestApp();
const API = '/api/v1/QRManager';

let seq = 0;
const address = (who: string) => `${who}${++seq}-${Date.now()}@example.com`;

/** An account with an owner's key (the `admin` scope) and the owner signed in to the portal. */
async function account() {
  const caller = await t.newCaller('pro');
  const owner = new PortalClient(t.app);
  await owner.signInLocally((await t.stores.accounts.findById(caller.accountId))!.email);
  const api = (method: string, url: string, body?: unknown, key = caller.key) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  return { ...caller, owner, api };
}

/** Invites `role` by API and joins as that e-mail through the accept URL; returns the member's portal and id. */
async function memberOf(acct: Awaited<ReturnType<typeof account>>, role: string) {
  const email = address(role);
  const invitation = (await acct.api('POST', `${API}/invitations`, { email, role })).json();
  const path = new URL(invitation.acceptUrl).pathname;
  const browser = new PortalClient(t.app);
  await browser.signInLocally(email);
  const joined = await browser.postForm(`${path}/accept`, { _csrf: csrfTokenIn((await browser.get(path)).body)! });
  expect(joined.statusCode).toBe(303);
  const members = (await acct.api('GET', `${API}/members`)).json().items as Array<{ id: string; email: string }>;
  const id = members.find((m) => m.email === email)!.id;
  const csrf = (await browser.json('GET', '/portal/api/session')).json().csrfToken as string;
  const makeKey = (body: Record<string, unknown>) =>
    browser.json('POST', '/portal/api/keys', { name: 'mine', ...body }, { 'x-csrf-token': csrf });
  return { browser, email, id, makeKey };
}

const listCodes = (key: string) => t.app.inject({ method: 'GET', url: `${API}/codes`, headers: { 'x-api-key': key } });

describe("a member's keys", () => {
  it('refuses a developer an admin- or domains-scoped key (insufficient_role); default: its role scopes', async () => {
    const acct = await account();
    const dev = await memberOf(acct, 'developer');

    const refused = await dev.makeKey({ scopes: ['codes:read', 'admin'] });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({
      code: 'insufficient_role',
      role: 'developer',
      requiredRole: 'admin',
      scopes: ['admin'],
    });
    const refusedForm = await dev.browser.postForm('/portal/keys', {
      name: 'form',
      scopes: 'domains',
      scopeChoice: '1',
      _csrf: csrfTokenIn((await dev.browser.get('/portal/keys')).body)!,
    });
    expect(refusedForm.statusCode).toBe(403);
    expect(refusedForm.body).toContain('`domains`');

    const made = await dev.makeKey({});
    expect(made.statusCode).toBe(201);
    expect(made.json().key.scopes).not.toContain('admin');
    expect(made.json().key.scopes).not.toContain('domains');
    expect(made.json().key.scopes).toContain('codes:write');
    // Only the owner's key exists besides it: nothing was stored by the refusals.
    expect((await t.stores.keys.list(acct.accountId)).length).toBe(2);

    // An admin may make an admin-scoped key.
    const admin = await memberOf(acct, 'admin');
    expect((await admin.makeKey({ scopes: ['admin'] })).statusCode).toBe(201);
  });

  it('removing a member revokes every key it made, audited; the other keys keep working', async () => {
    const acct = await account();
    const dev = await memberOf(acct, 'developer');
    const secret = (await dev.makeKey({ scopes: ['codes:read'] })).json().secret as string;
    expect((await listCodes(secret)).statusCode).toBe(200);

    const removed = await acct.api('DELETE', `${API}/members/${dev.id}`);
    expect(removed.statusCode).toBe(200);
    expect((await listCodes(secret)).statusCode).toBe(401);
    expect((await listCodes(acct.key)).statusCode).toBe(200);

    const entries = (await acct.api('GET', `${API}/audit-log?action=api_key.revoked`)).json().items;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: { type: 'api_key', id: acct.keyId },
      changes: { reason: 'member.removed', member: dev.id },
    });
  });

  it('a member leaving revokes its keys too', async () => {
    const acct = await account();
    const dev = await memberOf(acct, 'developer');
    const secret = (await dev.makeKey({ scopes: ['codes:read'] })).json().secret as string;
    const page = await dev.browser.get('/portal/members');
    const left = await dev.browser.postForm(`/portal/members/${dev.id}/remove`, { _csrf: csrfTokenIn(page.body)! });
    expect(left.statusCode).toBe(303);
    expect((await listCodes(secret)).statusCode).toBe(401);
  });

  it('a demotion revokes the keys holding a scope the new role may not give, and keeps the others', async () => {
    const acct = await account();
    const admin = await memberOf(acct, 'admin');
    const wide = (await admin.makeKey({ scopes: ['codes:read', 'admin'] })).json();
    const narrow = (await admin.makeKey({ scopes: ['codes:read'] })).json();

    expect((await acct.api('PATCH', `${API}/members/${admin.id}`, { role: 'developer' })).statusCode).toBe(200);
    expect((await listCodes(wide.secret)).statusCode).toBe(401);
    expect((await listCodes(narrow.secret)).statusCode).toBe(200);
    const entries = (await acct.api('GET', `${API}/audit-log?action=api_key.revoked`)).json().items;
    expect(entries.map((e: { target: { id: string } }) => e.target.id)).toEqual([wide.key.id]);
    expect(entries[0].changes).toMatchObject({ reason: 'member.role_changed', role: 'developer' });

    // A viewer may make no key at all: demoted to viewer, the rest goes too.
    const page = await acct.owner.get('/portal/members');
    const demoted = await acct.owner.postForm(`/portal/members/${admin.id}/role`, {
      role: 'viewer',
      _csrf: csrfTokenIn(page.body)!,
    });
    expect(demoted.statusCode).toBe(303);
    expect((await listCodes(narrow.secret)).statusCode).toBe(401);
  });

  it("owners see one member's keys (hint, scopes, expiry, made by) in the portal and revoke them", async () => {
    const acct = await account();
    const dev = await memberOf(acct, 'developer');
    const made = (await dev.makeKey({ scopes: ['codes:read'], expiresAt: '2099-01-31T00:00:00Z' })).json();

    const members = await acct.owner.get('/portal/members');
    expect(members.body).toContain(`/portal/keys?member=${dev.id}`);
    const page = await acct.owner.get(`/portal/keys?member=${dev.id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`Keys made by ${dev.email}`);
    const rows = [...page.body.matchAll(/<tr data-key-id="([^"]+)">([\s\S]*?)<\/tr>/g)];
    expect(rows.map((row) => row[1])).toEqual([made.key.id]);
    expect(rows[0]![2]).toContain(made.key.hint);
    expect(rows[0]![2]).toContain('codes:read');
    expect(rows[0]![2]).toContain('2099');
    expect(rows[0]![2]).toContain(`<td data-made-by>${dev.email}</td>`);

    const revoked = await acct.owner.postForm(`/portal/keys/${made.key.id}/revoke`, {
      _csrf: csrfTokenIn(page.body)!,
    });
    expect(revoked.statusCode).toBe(303);
    expect((await listCodes(made.secret)).statusCode).toBe(401);

    // The same list over the API, for an admin key.
    const listed = (await acct.api('GET', `${API}/keys?createdBy=${dev.id}`)).json();
    expect(listed.items).toMatchObject([{ id: made.key.id, status: 'revoked', createdBy: { id: dev.id } }]);
  });
});
