// Teams over HTTP with cookies and CSRF: invitations accepted by local sign-in, roles refused where they fall short,
// the last owner kept.
import { describe, expect, it } from 'vitest';
import { invitationTokenHash } from '../../src/services/invitations.js';
import { useTestApp } from '../helpers/app.js';
import { csrfTokenIn, PortalClient } from '../helpers/portal-client.js';

const t = useTestApp();
const API = '/api/v1/QRManager';

let seq = 0;
const address = (who: string) => `${who}${++seq}-${Date.now()}@example.com`;

/** An account with a key (made before it had members), and its owner signed in to the portal. */
async function ownerWithKey() {
  const caller = await t.newCaller('pro');
  const account = (await t.stores.accounts.findById(caller.accountId))!;
  const owner = new PortalClient(t.app);
  await owner.signInLocally(account.email);
  const api = (method: string, url: string, body?: unknown) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: { 'x-api-key': caller.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  return { ...caller, account, owner, api };
}

/** The invitee's browser: opens the link, signs in locally from it, joins with the page's form. */
async function acceptAs(email: string, acceptUrl: string) {
  const path = new URL(acceptUrl).pathname;
  const browser = new PortalClient(t.app);
  const landing = await browser.get(path);
  expect(landing.statusCode).toBe(200);
  const signInUrl = /href="([^"]*\/signin\?next=[^"]+)"/.exec(landing.body)![1]!.replaceAll('&amp;', '&');
  const form = await browser.get(signInUrl);
  expect(form.body).toContain(`name="next" value="${path}"`);
  const signedIn = await browser.postForm('/portal/auth/local', { email, next: path, _csrf: csrfTokenIn(form.body)! });
  expect(signedIn.headers.location).toBe(path);
  const joinPage = await browser.get(path);
  const joined = await browser.postForm(`${path}/accept`, { _csrf: csrfTokenIn(joinPage.body)! });
  return { browser, joined };
}

describe('members and invitations', () => {
  it('an account made before members lists its own identity as its owner', async () => {
    const { api, account } = await ownerWithKey();
    const listed = await api('GET', `${API}/members`);
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toEqual({
      items: [
        {
          id: expect.stringMatching(/^mem_/),
          email: account.email,
          role: 'owner',
          provider: 'local',
          joinedAt: account.createdAt.toISOString(),
        },
      ],
      nextCursor: null,
    });
  });

  it(
    'a viewer invited by API joins through the accept URL with local sign-in, is listed as viewer, and cannot ' +
      'create a key',
    async () => {
      const { api, account, accountId, owner } = await ownerWithKey();
      const viewerEmail = address('viewer');
      const created = await api('POST', `${API}/invitations`, { email: viewerEmail, role: 'viewer' });
      expect(created.statusCode).toBe(201);
      const invitation = created.json();
      expect(invitation).toMatchObject({ id: expect.stringMatching(/^inv_/), email: viewerEmail, role: 'viewer' });
      expect(new Date(invitation.expiresAt).getTime() - new Date(invitation.createdAt).getTime()).toBe(
        7 * 24 * 3600 * 1000,
      );
      const token = new URL(invitation.acceptUrl).pathname.split('/').at(-1)!;
      // Only its digest is stored, and listing never shows the token again.
      const stored = await t.stores.members.listInvitations(accountId, new Date());
      expect(stored.map((i) => i.tokenHash)).toEqual([invitationTokenHash(token)]);
      const pending = await api('GET', `${API}/invitations`);
      expect(pending.json().items).toEqual([
        {
          id: invitation.id,
          email: viewerEmail,
          role: 'viewer',
          createdAt: invitation.createdAt,
          expiresAt: invitation.expiresAt,
        },
      ]);
      expect(pending.body).not.toContain(token);

      t.clock.now = new Date(t.clock.now.getTime() + 60_000);
      const { browser, joined } = await acceptAs(viewerEmail, invitation.acceptUrl);
      expect(joined.statusCode).toBe(303);
      // Joining opens the joined account, shown on every page with the role held there.
      const dashboard = await browser.get('/portal/');
      expect(dashboard.statusCode).toBe(200);
      expect(dashboard.body).toMatch(new RegExp(`id="account-in-use"[^>]*>${account.email}<`));
      expect(dashboard.body).toContain('id="role-in-use" title="Your role in this account">viewer<');

      const members = (await api('GET', `${API}/members`)).json().items;
      expect(members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
        [viewerEmail, 'viewer'],
        [account.email, 'owner'],
      ]);
      expect((await api('GET', `${API}/invitations`)).json().items).toEqual([]);

      // The viewer reads the keys page, but creating a key is refused by role, as a page and on the JSON API.
      const keysPage = await browser.get('/portal/keys');
      expect(keysPage.statusCode).toBe(200);
      const refusedForm = await browser.postForm('/portal/keys', { name: 'mine', _csrf: csrfTokenIn(keysPage.body)! });
      expect(refusedForm.statusCode).toBe(403);
      expect(refusedForm.headers['content-type']).toContain('text/html');
      expect(refusedForm.body).toContain('developer');
      const csrf = (await browser.json('GET', '/portal/api/session')).json().csrfToken;
      const refusedJson = await browser.json('POST', '/portal/api/keys', { name: 'mine' }, { 'x-csrf-token': csrf });
      expect(refusedJson.statusCode).toBe(403);
      expect(refusedJson.headers['content-type']).toContain('application/problem+json');
      expect(refusedJson.json()).toMatchObject({
        code: 'insufficient_role',
        requiredRole: 'developer',
        role: 'viewer',
      });
      expect((await t.stores.keys.list(accountId)).length).toBe(1);

      // The owner's own portal still creates keys in the same account.
      const ownerKeys = await owner.get('/portal/keys');
      expect(
        (await owner.postForm('/portal/keys', { name: 'owner-made', _csrf: csrfTokenIn(ownerKeys.body)! })).statusCode,
      ).toBe(201);
    },
  );

  it(
    'refuses an invitation to a signed-in identity with another e-mail (403 invitation_email_mismatch), leaving ' +
      'it pending',
    async () => {
      const { api } = await ownerWithKey();
      const invitation = (
        await api('POST', `${API}/invitations`, { email: address('invited'), role: 'developer' })
      ).json();
      const path = new URL(invitation.acceptUrl).pathname;
      const stranger = new PortalClient(t.app);
      await stranger.signInLocally(address('stranger'));
      const page = await stranger.get(path);
      const refused = await stranger.postForm(`${path}/accept`, { _csrf: csrfTokenIn(page.body)! });
      expect(refused.statusCode).toBe(403);
      expect(refused.body).toContain('another e-mail address');
      expect((await api('GET', `${API}/members`)).json().items).toHaveLength(1);
      expect((await api('GET', `${API}/invitations`)).json().items.map((i: { id: string }) => i.id)).toEqual([
        invitation.id,
      ]);
    },
  );

  it('keeps the last owner: demoting or leaving is 409 last_owner until another member is an owner', async () => {
    const { api, owner } = await ownerWithKey();
    const ownerId = (await api('GET', `${API}/members`)).json().items[0].id;
    const page = await owner.get('/portal/members');
    const _csrf = csrfTokenIn(page.body)!;
    const demoted = await owner.postForm(`/portal/members/${ownerId}/role`, { role: 'admin', _csrf });
    expect(demoted.statusCode).toBe(409);
    expect(demoted.body).toContain('at least one owner');
    const left = await owner.postForm(`/portal/members/${ownerId}/remove`, { _csrf });
    expect(left.statusCode).toBe(409);
    expect((await api('GET', `${API}/members`)).json().items).toMatchObject([{ id: ownerId, role: 'owner' }]);
    // An API key acts as an admin: it cannot touch owners at all.
    const byKey = await api('PATCH', `${API}/members/${ownerId}`, { role: 'viewer' });
    expect(byKey.statusCode).toBe(403);
    expect(byKey.json()).toMatchObject({ code: 'insufficient_role', requiredRole: 'owner' });
  });

  it('one identity in two accounts switches between them with a CSRF-checked form', async () => {
    const { api, account } = await ownerWithKey();
    const email = address('two-accounts');
    const invitation = (await api('POST', `${API}/invitations`, { email, role: 'developer' })).json();
    const { browser } = await acceptAs(email, invitation.acceptUrl);
    const own = (await t.stores.accounts.findByIdentity({ provider: 'local', subject: email }))!;
    const inJoined = await browser.get('/portal/');
    expect(inJoined.body).toContain(`<option value="${own.id}">${email} (owner)</option>`);
    expect(await browser.postForm('/portal/account', { accountId: own.id })).toMatchObject({ statusCode: 403 });
    const switched = await browser.postForm('/portal/account', {
      accountId: own.id,
      _csrf: csrfTokenIn(inJoined.body)!,
    });
    expect(switched.statusCode).toBe(303);
    const inOwn = await browser.get('/portal/');
    expect(inOwn.body).toMatch(new RegExp(`id="account-in-use"[^>]*>${email}<`));
    const back = await browser.postForm('/portal/account', { accountId: account.id, _csrf: csrfTokenIn(inOwn.body)! });
    expect(back.statusCode).toBe(303);
    expect((await browser.get('/portal/')).body).toMatch(new RegExp(`id="account-in-use"[^>]*>${account.email}<`));
    // An account it is no member of cannot be opened.
    const stranger = await t.newCaller();
    const fresh = await browser.get('/portal/');
    const refused = await browser.postForm('/portal/account', {
      accountId: stranger.accountId,
      _csrf: csrfTokenIn(fresh.body)!,
    });
    expect(refused.statusCode).toBe(404);
  });
});
