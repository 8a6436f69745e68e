// Every state-changing portal request needs a CSRF token of its own session: forms in `_csrf`, the JSON API in
// X-CSRF-Token.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { csrfTokenIn, PortalClient } from '../helpers/portal-client.js';

const t = useTestApp();

let seq = 0;
async function signedIn(): Promise<{ client: PortalClient; accountId: string; csrf: string }> {
  const client = new PortalClient(t.app);
  await client.signInLocally(`csrf${++seq}-${Date.now()}@example.com`);
  const session = (await client.json('GET', '/portal/api/session')).json() as {
    account: { id: string };
    csrfToken: string;
  };
  return { client, accountId: session.account.id, csrf: session.csrfToken };
}

async function keyCount(accountId: string): Promise<number> {
  return (await t.stores.keys.list(accountId)).length;
}

describe('forms', () => {
  it('refuse a post without a token, and change nothing', async () => {
    const { client, accountId } = await signedIn();
    const res = await client.postForm('/portal/keys', { name: 'no token' });
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('CSRF token');
    expect(await keyCount(accountId)).toBe(0);
  });

  it('refuse a token that belongs to another session', async () => {
    const me = await signedIn();
    const other = await signedIn();
    const res = await me.client.postForm('/portal/keys', { name: 'borrowed token', _csrf: other.csrf });
    expect(res.statusCode).toBe(403);
    expect(await keyCount(me.accountId)).toBe(0);
  });

  it('refuse a tampered token', async () => {
    const { client, accountId, csrf } = await signedIn();
    const tampered = `${csrf.slice(0, -2)}${csrf.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await client.postForm('/portal/keys', { name: 'tampered', _csrf: tampered })).statusCode).toBe(403);
    expect(await keyCount(accountId)).toBe(0);
  });

  it('accept the token the page carries', async () => {
    const { client, accountId } = await signedIn();
    const _csrf = await client.csrfFrom('/portal/keys');
    expect((await client.postForm('/portal/keys', { name: 'with token', _csrf })).statusCode).toBe(201);
    expect(await keyCount(accountId)).toBe(1);
  });

  it.each([
    ['revoking a key', '/portal/keys/key_anything/revoke'],
    ['the playground', '/portal/playground'],
    ['signing out', '/portal/signout'],
    ['signing out everywhere', '/portal/signout/everywhere'],
    ['local sign-in', '/portal/auth/local'],
  ])('guard %s too', async (_what, url) => {
    const { client } = await signedIn();
    const res = await client.postForm(url, {
      type: 'url',
      content: 'https://example.com',
      outputFormat: 'png',
      email: 'x@example.com',
    });
    expect(res.statusCode).toBe(403);
    // Still signed in: the refused sign-out did nothing.
    expect((await client.get('/portal/')).statusCode).toBe(200);
  });

  it('put a token in every form on every page', async () => {
    const { client } = await signedIn();
    for (const page of ['/portal/', '/portal/keys', '/portal/playground', '/portal/qrs', '/portal/plans']) {
      const body = (await client.get(page)).body;
      const forms = body.match(/<form method="post"[\s\S]*?<\/form>/g) ?? [];
      expect(forms.length, page).toBeGreaterThan(0);
      for (const form of forms) expect(csrfTokenIn(form), `${page}: ${form.slice(0, 80)}`).toBeDefined();
    }
  });
});

describe('the JSON API', () => {
  it('refuses a write without the X-CSRF-Token header, as problem+json', async () => {
    const { client, accountId } = await signedIn();
    const res = await client.json('POST', '/portal/api/keys', { name: 'script' });
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 403, code: 'forbidden' });
    expect(await keyCount(accountId)).toBe(0);
  });

  it('accepts a write with the session’s token in X-CSRF-Token', async () => {
    const { client, accountId, csrf } = await signedIn();
    const res = await client.json('POST', '/portal/api/keys', { name: 'script' }, { 'x-csrf-token': csrf });
    expect(res.statusCode).toBe(201);
    expect(await keyCount(accountId)).toBe(1);
    const id = (res.json() as { key: { id: string } }).key.id;
    expect((await client.json('DELETE', `/portal/api/keys/${id}`)).statusCode).toBe(403);
    expect(
      (await client.json('DELETE', `/portal/api/keys/${id}`, undefined, { 'x-csrf-token': csrf })).statusCode,
    ).toBe(200);
  });

  it('refuses a text/plain body (what a cross-site form can send) before it reaches the handler', async () => {
    const { client, accountId } = await signedIn();
    const res = await client.request({
      method: 'POST',
      url: '/portal/api/keys',
      headers: { 'content-type': 'text/plain' },
      payload: '{"name":"x"}',
    });
    // Refused before its body is read: only a url-encoded form may carry its token in the body.
    expect(res.statusCode).toBe(403);
    expect(await keyCount(accountId)).toBe(0);
  });
});
