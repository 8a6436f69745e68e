// Abuse limits: the per-key burst, decided in the meter's step (429, Retry-After: 1, nothing counted); per-address
// limits on portal sign-in and key creation.
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodOf } from '../../src/domain/period.js';
import { addressBucket } from '../../src/http/portal/rate-limits.js';
import { issueKey } from '../../src/services/api-keys.js';
import { qrFingerprint } from '../../src/services/render-spec.js';
import { createTestApp, generate, type TestApp } from '../helpers/app.js';
import { startMockProvider, type MockProvider } from '../helpers/oidc-provider.js';
import { csrfTokenIn, PortalClient } from '../helpers/portal-client.js';
import { startTwoInstancesOnRedis, type TwoInstances } from '../helpers/two-instances.js';

const NOW = new Date('2026-11-15T12:00:00.000Z');
const png = (content: string) => ({ content, type: 'text', outputFormat: 'png', size: 64 });
const keyDeps = (t: TestApp) => ({ ...t.stores, keyPepper: t.config.keyPepper, clock: () => t.clock.now });

let seq = 0;
const email = (what: string) => `abuse-${what}-${++seq}-${randomUUID().slice(0, 8)}@example.com`;

function expectRateLimited(res: LightMyRequestResponse) {
  expect(res.statusCode).toBe(429);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.json()).toMatchObject({ status: 429, code: 'rate_limited' });
}

function rejections(metrics: string, reason: string): number {
  return Number(new RegExp(`^qrm_quota_rejections_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
}

describe('per-key burst on the generation API', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ now: NOW });
  });
  afterAll(async () => t?.close());

  /** Each case its own instant, so no case sees another's window. */
  let instant = 0;
  const freshSecond = () => (t.clock.now = new Date(NOW.getTime() + ++instant * 60_000));

  it(
    'admits exactly a free key’s 10 of many concurrent requests, the rest 429 rate_limited with Retry-After: 1, ' +
      'counting none of them',
    async () => {
      const at = freshSecond();
      const caller = await t.newCaller('free');
      const answers = await Promise.all(
        Array.from({ length: 25 }, (_, i) => generate(t.app, caller.key, png(`burst ${i % 2}`))),
      );
      expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(10);
      const refused = answers.filter((r) => r.statusCode !== 200);
      expect(refused).toHaveLength(15);
      for (const res of refused) {
        expectRateLimited(res);
        expect(res.headers['retry-after']).toBe('1');
        expect(res.headers['ratelimit-policy']).toMatch(/, "burst";q=10;w=1$/);
        expect(res.headers['ratelimit']).toMatch(/^"monthly";r=490;t=\d+, "monthly-qrs";r=3;t=\d+, "burst";r=0;t=1$/);
        expect(res.headers['x-ratelimit-remaining']).toBe('490'); // X-RateLimit-* stay monthly
      }
      expect(await t.stores.meter.usage(caller.accountId, periodOf(at))).toEqual({ requests: 10, qrs: 2 });
    },
  );

  it(
    'puts a burst entry beside the monthly ones on ' + 'every metered response, a success or a monthly ' + 'refusal',
    async () => {
      const at = freshSecond();
      const pro = await t.newCaller('pro');
      const ok = await generate(t.app, pro.key, png('headers'));
      expect(ok.statusCode).toBe(200);
      expect(ok.headers['ratelimit-policy']).toMatch(
        /^"monthly";q=100000;w=\d+, "monthly-qrs";q=10000;w=\d+, "burst";q=100;w=1$/,
      );
      expect(ok.headers['ratelimit']).toMatch(
        /^"monthly";r=99999;t=\d+, "monthly-qrs";r=9999;t=\d+, "burst";r=99;t=1$/,
      );
      expect(ok.headers['x-ratelimit-limit']).toBe('100000');
      expect(ok.headers['x-ratelimit-remaining']).toBe('99999');

      const spent = await t.newCaller('free');
      const qr = { fingerprint: qrFingerprint('text', 'spent'), type: 'text' as const, payload: 'spent' };
      for (let i = 0; i < 500; i++)
        await t.stores.meter.reserve({
          accountId: spent.accountId,
          period: periodOf(at),
          qr,
          limits: { requests: 500, qrs: 5 },
          at,
        });
      const monthly = await generate(t.app, spent.key, png('spent'));
      expect(monthly.statusCode).toBe(429);
      expect(monthly.json().code).toBe('quota_exceeded');
      expect(monthly.headers['ratelimit']).toMatch(/^"monthly";r=0;t=\d+, "monthly-qrs";r=4;t=\d+, "burst";r=10;t=1$/);
    },
  );

  it('admits the key again once its second has passed, and holds each key of an account to its own burst', async () => {
    const at = freshSecond();
    const caller = await t.newCaller('free');
    for (let i = 0; i < 10; i++) expect((await generate(t.app, caller.key, png('paced'))).statusCode).toBe(200);
    expectRateLimited(await generate(t.app, caller.key, png('paced')));
    const second = await issueKey(keyDeps(t), caller.accountId, 'second');
    expect((await generate(t.app, second.secret, png('paced'))).statusCode).toBe(200);
    t.clock.now = new Date(at.getTime() + 999);
    expectRateLimited(await generate(t.app, caller.key, png('paced')));
    t.clock.now = new Date(at.getTime() + 1_000);
    const again = await generate(t.app, caller.key, png('paced'));
    expect(again.statusCode).toBe(200);
    expect(again.headers['ratelimit']).toMatch(/"burst";r=9;t=1$/);
    expect(await t.stores.meter.usage(caller.accountId, periodOf(at))).toEqual({ requests: 12, qrs: 1 });
  });

  it('counts burst refusals in qrm_quota_rejections_total{reason="rate_limited"}', async () => {
    freshSecond();
    const before = rejections((await t.app.inject({ method: 'GET', url: '/metrics' })).body, 'rate_limited');
    const caller = await t.newCaller('free');
    await Promise.all(Array.from({ length: 13 }, () => generate(t.app, caller.key, png('metrics'))));
    const after = rejections((await t.app.inject({ method: 'GET', url: '/metrics' })).body, 'rate_limited');
    expect(after - before).toBe(3);
  });

  it('holds the portal playground to a burst of its own per account, apart from the account’s keys', async () => {
    const at = freshSecond();
    const client = new PortalClient(t.app);
    await client.signInLocally(email('playground'));
    const accountId = ((await client.json('GET', '/portal/api/session')).json() as { account: { id: string } }).account
      .id;
    const key = (await issueKey(keyDeps(t), accountId, 'api')).secret;
    const form = {
      _csrf: await client.csrfFrom('/portal/playground'),
      type: 'url',
      content: 'https://example.com/playground',
      outputFormat: 'png',
      size: '256',
    };

    // The key uses up its second; the playground still has its own.
    for (let i = 0; i < 10; i++)
      expect((await generate(t.app, key, { content: form.content, type: 'url', outputFormat: 'png' })).statusCode).toBe(
        200,
      );
    expectRateLimited(await generate(t.app, key, { content: form.content, type: 'url', outputFormat: 'png' }));
    for (let i = 0; i < 10; i++) expect((await client.postForm('/portal/playground', form)).statusCode).toBe(200);
    const refused = await client.postForm('/portal/playground', form);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body).toContain('10 requests a second in the playground');
    expect(await t.stores.meter.usage(accountId, periodOf(at))).toEqual({ requests: 20, qrs: 1 });
  });
});

describe('two API instances on one Redis', () => {
  let instances: TwoInstances;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    // The apps' clocks stop at their start (now, not NOW: Redis expires portal sessions by its own clock).
    instances = await startTwoInstancesOnRedis('abuse', { env: { PORTAL_SIGNIN_PER_MINUTE: '2' } });
    ({ a, b } = instances);
  }, 60_000);
  afterAll(async () => instances?.close());

  it(
    'admit exactly the key’s burst between them: the ' +
      'burst is decided in the reservation’s one Lua round ' +
      'trip',
    async () => {
      const caller = await a.newCaller('free');
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) => generate(i % 2 === 0 ? a.app : b.app, caller.key, png('shared'))),
      );
      expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(10);
      const refused = answers.filter((r) => r.statusCode !== 200);
      expect(refused).toHaveLength(20);
      for (const res of refused) {
        expectRateLimited(res);
        expect(res.headers['retry-after']).toBe('1');
      }
      expect(await b.stores.meter.usage(caller.accountId, periodOf(b.clock.now))).toEqual({ requests: 10, qrs: 1 });
    },
  );

  it('share the portal’s per-address sign-in budget (kept in Redis)', async () => {
    await new PortalClient(a.app).signInLocally(email('shared-a'));
    await new PortalClient(b.app).signInLocally(email('shared-b'));
    const third = new PortalClient(a.app);
    const refused = await third.postForm('/portal/auth/local', {
      email: email('shared-c'),
      _csrf: await third.csrfFrom('/portal/signin'),
    });
    expect(refused.statusCode).toBe(429);
    // Another address is not held back, on either instance.
    await new PortalClient(b.app, { remoteAddress: '::1' }).signInLocally(email('shared-d'));
  });
});

describe('portal sign-in, per client address', () => {
  let t: TestApp;
  let google: MockProvider;
  let oidc: TestApp;

  beforeAll(async () => {
    google = await startMockProvider('google');
    t = await createTestApp({ env: { PORTAL_SIGNIN_PER_MINUTE: '3' } });
    oidc = await createTestApp({
      env: {
        GOOGLE_CLIENT_ID: 'google-client',
        GOOGLE_CLIENT_SECRET: 'google-secret',
        GOOGLE_ISSUER: google.issuer,
        PUBLIC_URL: 'http://127.0.0.1:3999',
        SESSION_SECRET: 'a-session-secret-of-at-least-32-characters',
        PORTAL_SIGNIN_PER_MINUTE: '2',
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await oidc?.close();
    await google?.stop();
  });

  it(
    'refuses a 4th local sign-in from one address within the minute with a 429 page and Retry-After, while ' +
      'another address signs in',
    async () => {
      for (let i = 0; i < 3; i++) await new PortalClient(t.app).signInLocally(email('local'));
      const fourth = new PortalClient(t.app);
      const refused = await fourth.postForm('/portal/auth/local', {
        email: email('local'),
        _csrf: await fourth.csrfFrom('/portal/signin'),
      });
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['content-type']).toMatch(/^text\/html/);
      expect(refused.body).toContain('Too many requests');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect((await fourth.get('/portal/')).headers.location).toBe('/portal/signin'); // not signed in
      await new PortalClient(t.app, { remoteAddress: '::1' }).signInLocally(email('local'));
    },
  );

  it('limits OIDC sign-in starts and callbacks per address, each in a bucket of its own', async () => {
    const from = (remoteAddress: string) => new PortalClient(oidc.app, { remoteAddress });
    const start = (client: PortalClient) => client.get('/portal/auth/google');
    const callback = (client: PortalClient) => client.get('/portal/auth/google/callback?code=forged&state=forged');

    const first = from('198.51.100.1');
    expect((await start(first)).statusCode).toBe(303);
    expect((await start(first)).statusCode).toBe(303);
    const refused = await start(first);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    expect((await start(from('198.51.100.2'))).statusCode).toBe(303);

    // The same address's callbacks have their own budget: refused for what they are first, then for their rate.
    expect((await callback(first)).statusCode).not.toBe(429);
    expect((await callback(first)).statusCode).not.toBe(429);
    expect((await callback(first)).statusCode).toBe(429);
    expect((await callback(from('198.51.100.2'))).statusCode).not.toBe(429);
  });

  it('counts IPv6 clients by their /64, IPv4 clients by their address', () => {
    expect(addressBucket('2001:db8:1:2::1')).toBe(addressBucket('2001:db8:1:2:ffff:ffff:ffff:fffe'));
    expect(addressBucket('2001:db8:1:2::1')).not.toBe(addressBucket('2001:db8:1:3::1'));
    expect(addressBucket('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(addressBucket('192.0.2.1')).not.toBe(addressBucket('192.0.2.2'));
  });
});

describe('portal key creation, per client address', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { PORTAL_KEY_CREATIONS_PER_HOUR: '3' } });
  });
  afterAll(async () => t?.close());

  it(
    'shares one hourly budget between the form and the JSON API: past it, problem+json or a page; another ' +
      'address still creates',
    async () => {
      const here = new PortalClient(t.app);
      await here.signInLocally(email('keys'));
      const csrf = ((await here.json('GET', '/portal/api/session')).json() as { csrfToken: string }).csrfToken;
      const viaForm = async (client: PortalClient, name: string) =>
        client.postForm('/portal/keys', { name, _csrf: csrfTokenIn((await client.get('/portal/keys')).body) ?? '' });
      const viaApi = (client: PortalClient, name: string) =>
        client.json('POST', '/portal/api/keys', { name }, { 'x-csrf-token': csrf });

      expect((await viaForm(here, 'one')).statusCode).toBe(201);
      expect((await viaApi(here, 'two')).statusCode).toBe(201);
      expect((await viaForm(here, 'three')).statusCode).toBe(201);
      const api = await viaApi(here, 'four');
      expectRateLimited(api);
      expect(Number(api.headers['retry-after'])).toBeGreaterThan(60);
      expect(Number(api.headers['retry-after'])).toBeLessThanOrEqual(3600);
      const form = await viaForm(here, 'four');
      expect(form.statusCode).toBe(429);
      expect(form.headers['content-type']).toMatch(/^text\/html/);

      // The same session from another address: its own budget.
      const elsewhere = new PortalClient(t.app, { remoteAddress: '203.0.113.7' });
      for (const [name, value] of here.cookies) elsewhere.setCookie(name, value);
      expect((await viaApi(elsewhere, 'four')).statusCode).toBe(201);
      const listed = (await here.json('GET', '/portal/api/keys')).json() as { keys: unknown[] };
      expect(listed.keys).toHaveLength(4);
    },
  );
});
