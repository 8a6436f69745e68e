// Local sign-in (no provider configured) is for loopback only; sessions are server-side, rotated at sign-in and
// revocable.
import { describe, expect, it } from 'vitest';
import { createLocalAccount } from '../../src/services/accounts.js';
import { createTestApp, useTestApp } from '../helpers/app.js';
import { PortalClient } from '../helpers/portal-client.js';

const t = useTestApp();

let seq = 0;
const email = () => `local${++seq}-${Date.now()}@example.com`;

async function expectSignedOut(client: PortalClient) {
  const res = await client.get('/portal/');
  expect(res.statusCode).toBe(303);
  expect(res.headers.location).toBe('/portal/signin');
}

describe('local sign-in', () => {
  it('is offered to a loopback browser and signs in to the local identity of that address', async () => {
    const address = email();
    const client = new PortalClient(t.app);
    const page = await client.get('/portal/signin');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('action="/portal/auth/local"');
    await client.signInLocally(address);
    const dashboard = await client.get('/portal/');
    expect(dashboard.statusCode).toBe(200);
    expect(dashboard.body).toContain(address);
    expect(await t.stores.accounts.findByIdentity({ provider: 'local', subject: address })).toMatchObject({
      plan: 'free',
    });
  });

  it('signs in to the account `qrm accounts create` made for the same address', async () => {
    const address = email();
    const made = await createLocalAccount({ accounts: t.stores.accounts, clock: () => new Date() }, address, 'pro');
    const client = new PortalClient(t.app);
    await client.signInLocally(address);
    expect((await client.json('GET', '/portal/api/session')).json()).toMatchObject({
      account: { id: made.id, plan: 'pro' },
    });
  });

  it('sets an httpOnly, SameSite=Lax session cookie (not Secure over plain http)', async () => {
    const client = new PortalClient(t.app);
    const _csrf = await client.csrfFrom('/portal/signin');
    const res = await client.postForm('/portal/auth/local', { email: email(), _csrf });
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/^qrm_session=[\w-]{43}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/);
  });

  it('is not offered to, and refuses, a browser on another machine', async () => {
    const remote = new PortalClient(t.app, { remoteAddress: '203.0.113.7' });
    const page = await remote.get('/portal/signin');
    expect(page.body).not.toContain('action="/portal/auth/local"');
    expect(page.body).toContain('only to browsers on the same machine');
    // Even holding a loopback browser's session and a valid token.
    const local = new PortalClient(t.app);
    const _csrf = await local.csrfFrom('/portal/signin');
    const stolen = new PortalClient(t.app, { remoteAddress: '203.0.113.7' });
    for (const [name, value] of local.cookies) stolen.setCookie(name, value);
    const address = email();
    const res = await stolen.postForm('/portal/auth/local', { email: address, _csrf });
    expect(res.statusCode).toBe(403);
    expect(await t.stores.accounts.findByEmail(address)).toEqual([]);
  });

  it('refuses a loopback connection that says it was forwarded (a reverse proxy on the same host)', async () => {
    const client = new PortalClient(t.app);
    const _csrf = await client.csrfFrom('/portal/signin');
    const address = email();
    const res = await client.request({
      method: 'POST',
      url: '/portal/auth/local',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '198.51.100.4' },
      payload: new URLSearchParams({ email: address, _csrf }).toString(),
    });
    expect(res.statusCode).toBe(403);
    expect(await t.stores.accounts.findByEmail(address)).toEqual([]);
  });

  it('shows the form again with a message for an address that is not one', async () => {
    const client = new PortalClient(t.app);
    const _csrf = await client.csrfFrom('/portal/signin');
    const res = await client.postForm('/portal/auth/local', { email: 'not-an-address', _csrf });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('not a valid e-mail address');
    expect(res.body).toContain('value="not-an-address"');
  });
});

describe('sessions', () => {
  it('rotate at sign-in: the session that carried the form is gone afterwards', async () => {
    const client = new PortalClient(t.app);
    await client.get('/portal/signin');
    const before = client.cookies.get('qrm_session')!;
    await client.signInLocally(email());
    expect(client.cookies.get('qrm_session')).not.toBe(before);
    expect(await t.stores.sessions.find(before, new Date())).toBeUndefined();
  });

  it('store only a digest of the cookie value', async () => {
    const client = new PortalClient(t.app);
    await client.signInLocally(email());
    const token = client.cookies.get('qrm_session')!;
    const { sessionIdOf } = await import('../../src/services/sessions.js');
    expect(await t.stores.sessions.find(token, new Date())).toBeUndefined();
    expect(await t.stores.sessions.find(sessionIdOf(token), new Date())).toBeDefined();
  });

  it('end on the server at sign-out: a copy of the cookie is refused afterwards', async () => {
    const client = new PortalClient(t.app);
    await client.signInLocally(email());
    const copy = client.clone();
    const _csrf = await client.csrfFrom('/portal/');
    const res = await client.postForm('/portal/signout', { _csrf });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/portal/signin');
    await expectSignedOut(client);
    await expectSignedOut(copy);
  });

  it('can all be ended at once ("sign out everywhere")', async () => {
    const address = email();
    const laptop = new PortalClient(t.app);
    const phone = new PortalClient(t.app);
    await laptop.signInLocally(address);
    await phone.signInLocally(address);
    const _csrf = await laptop.csrfFrom('/portal/');
    expect((await laptop.postForm('/portal/signout/everywhere', { _csrf })).statusCode).toBe(303);
    await expectSignedOut(phone);
    await expectSignedOut(laptop);
  });

  it('expire after a week', async () => {
    const client = new PortalClient(t.app);
    await client.signInLocally(email());
    const start = t.clock.now;
    try {
      t.clock.now = new Date(start.getTime() + 6 * 24 * 3600 * 1000);
      expect((await client.get('/portal/')).statusCode).toBe(200);
      t.clock.now = new Date(start.getTime() + 7 * 24 * 3600 * 1000 + 1000);
      await expectSignedOut(client);
    } finally {
      t.clock.now = start;
    }
  });

  it('refuse a made-up cookie value', async () => {
    const client = new PortalClient(t.app);
    client.setCookie('qrm_session', 'A'.repeat(43));
    await expectSignedOut(client);
  });
});

describe("sessions in production mode's Redis", () => {
  it('sign in, survive across requests, and end at sign-out', async () => {
    const { startRedisServer } = await import('../helpers/redis-server.js');
    const redis = await startRedisServer();
    const keyPrefix = `portal-test:${Date.now()}:`;
    const prod = await createTestApp({ redis: { url: redis.url, keyPrefix } });
    const { Redis } = await import('ioredis');
    const inspector = new Redis(redis.url);
    try {
      const client = new PortalClient(prod.app);
      await client.signInLocally(email());
      expect((await client.get('/portal/keys')).statusCode).toBe(200);
      expect(await inspector.keys(`${keyPrefix}session:*`)).toHaveLength(1);
      const copy = client.clone();
      const _csrf = await client.csrfFrom('/portal/');
      expect((await client.postForm('/portal/signout', { _csrf })).statusCode).toBe(303);
      await expectSignedOut(copy);
      expect(await inspector.keys(`${keyPrefix}session:*`)).toHaveLength(0);
    } finally {
      inspector.disconnect();
      await prod.close();
      await redis.destroy();
    }
  });
});
