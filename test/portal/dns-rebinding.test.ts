// Local sign-in and local sessions answer only to this machine's own names and pages: DNS rebinding and cross-site
// posts are refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { csrfTokenIn, PortalClient } from '../helpers/portal-client.js';

let t: TestApp;
beforeAll(async () => {
  // The rebound name is one the operator allows here, so that the local-session rules themselves are tested: a Host
  // that is
  // not this service's own gets a 404 before them (the last test).
  t = await createTestApp({ env: { ALLOWED_HOSTS: 'rebind.attacker.example' } });
});
afterAll(async () => {
  await t?.close();
});

// What a page on the attacker's site sends once its own name resolves to 127.0.0.1.
const REBOUND = { host: 'rebind.attacker.example:3000', origin: 'http://rebind.attacker.example:3000' };

let seq = 0;
const email = () => `rebind${++seq}-${Date.now()}@example.com`;

function postSignIn(client: PortalClient, fields: Record<string, string>, headers: Record<string, string>) {
  return client.request({
    method: 'POST',
    url: '/portal/auth/local',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
}

describe('local sign-in under DNS rebinding', () => {
  it('is not offered on a loopback connection whose Host is another name, and opens no session there', async () => {
    const client = new PortalClient(t.app);
    const page = await client.get('/portal/signin', { host: REBOUND.host });
    expect(page.body).not.toContain('action="/portal/auth/local"');
    expect(client.cookies.get('qrm_session')).toBeUndefined();
  });

  it('refuses the sign-in post under a rebound Host, even with a valid session and token', async () => {
    const client = new PortalClient(t.app);
    const _csrf = await client.csrfFrom('/portal/signin');
    const address = email();
    const res = await postSignIn(client, { email: address, _csrf }, REBOUND);
    expect(res.statusCode).toBe(403);
    expect(await t.stores.accounts.findByEmail(address)).toEqual([]);
  });

  it.each([
    ['a cross-site Origin', { origin: 'http://evil.example' }],
    ['an Origin on another local port', { origin: 'http://localhost:8080' }],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: same-site', { 'sec-fetch-site': 'same-site', origin: 'http://localhost' }],
    ['neither Origin nor Sec-Fetch-Site', {}],
    ['Origin: null', { origin: 'null' }],
  ])('refuses a local sign-in post with %s', async (_name, headers: Record<string, string>) => {
    const client = new PortalClient(t.app);
    const _csrf = await client.csrfFrom('/portal/signin');
    const address = email();
    const res = await postSignIn(client, { email: address, _csrf }, headers);
    expect(res.statusCode).toBe(403);
    expect(await t.stores.accounts.findByEmail(address)).toEqual([]);
  });

  it.each([
    ['localhost with a port', { host: 'localhost:3000', origin: 'http://localhost:3000' }],
    ['127.0.0.1 with a port', { host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3000' }],
    ['[::1] with a port', { host: '[::1]:3000', origin: 'http://[::1]:3000' }],
    ['Sec-Fetch-Site: same-origin without Origin', { host: 'localhost:3000', 'sec-fetch-site': 'same-origin' }],
  ])('signs in from the sign-in page at %s', async (_name, headers: Record<string, string>) => {
    const client = new PortalClient(t.app);
    const page = await client.get('/portal/signin', { host: headers.host! });
    const _csrf = csrfTokenIn(page.body)!;
    const res = await postSignIn(client, { email: email(), _csrf }, headers);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/portal/');
  });
});

describe('a local session under DNS rebinding', () => {
  it('cannot create a key through the JSON API or the form when the Host is another name', async () => {
    const client = new PortalClient(t.app);
    await client.signInLocally(email());
    const { csrfToken, account } = (await client.json('GET', '/portal/api/session')).json() as {
      csrfToken: string;
      account: { id: string };
    };
    const api = await client.json(
      'POST',
      '/portal/api/keys',
      { name: 'rebound' },
      { 'x-csrf-token': csrfToken, ...REBOUND },
    );
    expect(api.statusCode).toBe(403);
    const _csrf = await client.csrfFrom('/portal/keys');
    const form = await client.postForm('/portal/keys', { name: 'rebound', _csrf }, REBOUND);
    expect(form.statusCode).toBe(403);
    expect(await t.stores.keys.list(account.id)).toEqual([]);
  });
});

describe("a Host that is not this service's own", () => {
  it('gets a 404 from the portal and the API before any session or key is looked at', async () => {
    const strict = await createTestApp();
    try {
      const client = new PortalClient(strict.app);
      expect((await client.get('/portal/signin', { host: REBOUND.host })).statusCode).toBe(404);
      const _csrf = await client.csrfFrom('/portal/signin');
      const address = email();
      expect((await postSignIn(client, { email: address, _csrf }, REBOUND)).statusCode).toBe(404);
      expect(await strict.stores.accounts.findByEmail(address)).toEqual([]);
      const { key } = await strict.newCaller('pro');
      const api = await strict.app.inject({
        method: 'GET',
        url: '/api/v1/QRManager/codes',
        headers: { host: REBOUND.host, 'x-api-key': key },
      });
      expect(api.json()).toMatchObject({ status: 404, code: 'not_found' });
    } finally {
      await strict.close();
    }
  });
});
