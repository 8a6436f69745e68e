// Portal per-address limits count only requests that passed the session and CSRF checks: anonymous traffic from a
// shared address locks no one out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { csrfTokenIn, PortalClient } from '../helpers/portal-client.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { PORTAL_KEY_CREATIONS_PER_HOUR: '3', PORTAL_SIGNIN_PER_MINUTE: '3' } });
});
afterAll(async () => t?.close());

let seq = 0;
const email = () => `shared${++seq}-${Date.now()}@example.com`;
// Everyone behind one NAT: the signed-in user and the anonymous requests share this address.
const SHARED = '198.51.100.60';

describe('portal limits behind a shared address', () => {
  it('anonymous and forged key creations (401, 403) do not use up a signed-in user’s key budget', async () => {
    const user = new PortalClient(t.app);
    await user.signInLocally(email());
    const shared = new PortalClient(t.app, { remoteAddress: SHARED });
    for (const [name, value] of user.cookies) shared.setCookie(name, value);
    const anonymous = new PortalClient(t.app, { remoteAddress: SHARED });
    for (let i = 0; i < 12; i++) {
      expect(
        (await anonymous.json('POST', '/portal/api/keys', { name: 'x' }, { 'x-csrf-token': 'forged' })).statusCode,
      ).toBe(401);
      expect(
        (await shared.json('POST', '/portal/api/keys', { name: 'x' }, { 'x-csrf-token': 'forged' })).statusCode,
      ).toBe(403);
      // to sign-in
      expect((await anonymous.postForm('/portal/keys', { name: 'x', _csrf: 'forged' })).statusCode).toBe(303);
    }
    const csrf = ((await shared.json('GET', '/portal/api/session')).json() as { csrfToken: string }).csrfToken;
    expect((await shared.json('POST', '/portal/api/keys', { name: 'mine' }, { 'x-csrf-token': csrf })).statusCode).toBe(
      201,
    );
    const form = await shared.postForm('/portal/keys', {
      name: 'mine too',
      _csrf: csrfTokenIn((await shared.get('/portal/keys')).body) ?? '',
    });
    expect(form.statusCode).toBe(201);
  });

  it('local sign-in posts without a valid form token do not use up the address’s sign-in budget', async () => {
    const remote = '::1';
    for (let i = 0; i < 12; i++) {
      const forged = new PortalClient(t.app, { remoteAddress: remote });
      expect((await forged.postForm('/portal/auth/local', { email: email(), _csrf: 'forged' })).statusCode).toBe(403);
    }
    await new PortalClient(t.app, { remoteAddress: remote }).signInLocally(email());
  });

  it('still refuses the 4th authenticated key creation from one address within the hour', async () => {
    const local = new PortalClient(t.app);
    await local.signInLocally(email());
    const user = new PortalClient(t.app, { remoteAddress: '198.51.100.61' });
    for (const [name, value] of local.cookies) user.setCookie(name, value);
    const csrf = ((await user.json('GET', '/portal/api/session')).json() as { csrfToken: string }).csrfToken;
    const create = () => user.json('POST', '/portal/api/keys', { name: 'k' }, { 'x-csrf-token': csrf });
    for (let i = 0; i < 3; i++) expect((await create()).statusCode).toBe(201);
    expect((await create()).statusCode).toBe(429);
  });
});
