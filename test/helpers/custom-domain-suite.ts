// Custom domains and vanity slugs, run in the embedded default and in Redis mode: verification by a real HTTP request with the domain's Host, scans by Host.
import { randomUUID } from 'node:crypto';
import { request, type IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { FetchDomainProbe } from '../../src/adapters/webhooks/domain-probe.fetch.js';
import type { Resolve } from '../../src/adapters/webhooks/webhook-sender.fetch.js';
import { bindJobs } from '../../src/services/background-jobs.js';
import { LastUsedBuffer } from '../../src/services/last-used-buffer.js';
import type { TestApp } from './app.js';
import { codesApi, USER_AGENTS } from './codes.js';
import { decodeQr, readByAll } from './decode.js';

export const DOMAINS_URL = '/api/v1/QRManager/domains';
/** The service's own PUBLIC_URL in these suites. */
export const SERVICE_URL = 'https://qr.service.example';

/** Every hostname reaches the test's server on loopback, except `unrouted-…` ones (127.0.0.2, where nothing listens). */
export const loopbackResolve: Resolve = async (hostname) => [{ address: hostname.startsWith('unrouted-') ? '127.0.0.2' : '127.0.0.1', family: 4 }];

/** The check as production builds it, but allowed onto loopback and pointed at the port the test's server listens on. */
export function loopbackProbe(port: number): FetchDomainProbe {
  return new FetchDomainProbe({ allowPrivate: true, resolve: loopbackResolve, port });
}

export interface DomainJson {
  id: string;
  hostname: string;
  status: 'pending' | 'active';
  verification: { token: string; url: string };
  lastCheck: { at: string; problem: string | null } | null;
  verifiedAt: string | null;
}

export interface SuiteContext {
  t: TestApp;
  port: number;
  /** Scans of a code as its statistics count them, once what was recorded has reached them. */
  countedScans(key: string, codeId: string): Promise<number>;
}

/** A GET to the listening server with this Host header, as a browser that resolved the hostname to it would send. */
function httpGet(port: number, path: string, host: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      res.resume();
      resolve(res);
    });
    req.on('error', reject);
    req.end();
  });
}

const uniqueHost = (prefix = 'go') => `${prefix}-${randomUUID().slice(0, 8)}.brand.example`;

export function customDomainSuite(mode: string, context: () => SuiteContext): void {
  const app = () => context().t.app;
  const call = (key: string, method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown) =>
    app().inject({
      method,
      url,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  const onHost = (host: string, url: string, extra: { userAgent?: string } = {}) =>
    app().inject({ method: 'GET', url, headers: { host, ...(extra.userAgent ? { 'user-agent': extra.userAgent } : {}) } });
  const addDomain = async (key: string, hostname = uniqueHost()): Promise<DomainJson> => {
    const res = await call(key, 'POST', DOMAINS_URL, { hostname });
    if (res.statusCode !== 201) throw new Error(`add domain: ${res.statusCode} ${res.body}`);
    return res.json() as DomainJson;
  };
  const activeDomain = async (key: string): Promise<DomainJson> => {
    const domain = await addDomain(key);
    const verified = await call(key, 'POST', `${DOMAINS_URL}/${domain.id}/verify`);
    expect(verified.json()).toMatchObject({ status: 'active' });
    return verified.json() as DomainJson;
  };

  describe(`custom domains (${mode})`, () => {
    it('refuses what cannot be a custom domain, a plan without any, and a hostname another account holds', async () => {
      const free = await context().t.newCaller('free');
      expect((await call(free.key, 'POST', DOMAINS_URL, { hostname: uniqueHost() })).json()).toMatchObject({ status: 403, code: 'plan_upgrade_required' });
      const { key } = await context().t.newCaller('pro');
      for (const hostname of [
        '127.0.0.1',
        '[::1]',
        '0x7f.1',
        'localhost',
        'https://go.example.com/',
        'go.example.com:8080',
        'qr.service.example',
        'bad_label.example',
      ]) {
        const res = await call(key, 'POST', DOMAINS_URL, { hostname });
        expect(res.json(), hostname).toMatchObject({ status: 400, code: 'invalid_request', errors: [{ field: 'hostname' }] });
      }
      const idn = `Bücher-${randomUUID().slice(0, 6)}.Example.`;
      const created = await call(key, 'POST', DOMAINS_URL, { hostname: idn });
      expect(created.statusCode).toBe(201);
      const domain = created.json() as DomainJson;
      expect(domain.hostname).toMatch(/^xn--bcher-.*\.example$/);
      expect(domain).toMatchObject({ status: 'pending', verifiedAt: null, lastCheck: null });
      expect(domain.verification.url).toBe(`http://${domain.hostname}/.well-known/qrm-domain/${domain.verification.token}`);
      expect(created.headers.location).toBe(`${DOMAINS_URL}/${domain.id}`);

      const other = await context().t.newCaller('pro');
      expect((await call(other.key, 'POST', DOMAINS_URL, { hostname: domain.hostname })).json()).toMatchObject({ status: 409, code: 'hostname_taken' });
      expect((await call(other.key, 'GET', `${DOMAINS_URL}/${domain.id}`)).statusCode).toBe(404);
      expect((await call(other.key, 'DELETE', `${DOMAINS_URL}/${domain.id}`)).statusCode).toBe(404);
      expect((await call(other.key, 'POST', `${DOMAINS_URL}/${domain.id}/verify`)).statusCode).toBe(404);
      expect((await call(other.key, 'GET', DOMAINS_URL)).json()).toEqual({ items: [], nextCursor: null });
      expect((await call(key, 'GET', DOMAINS_URL)).json()).toEqual({ items: [domain], nextCursor: null });
    });

    it('a pending domain becomes active once its verification URL reaches this service (a real request with its Host); an unrouted one stays pending', async () => {
      const { key } = await context().t.newCaller('pro');
      const domain = await addDomain(key);
      const path = `/.well-known/qrm-domain/${domain.verification.token}`;
      const answer = await onHost(domain.hostname, path);
      expect(answer.statusCode).toBe(200);
      expect(answer.body).toBe(domain.verification.token);
      expect((await onHost('other.brand.example', path)).statusCode).toBe(404);
      expect((await onHost(domain.hostname, `/.well-known/qrm-domain/${'x'.repeat(32)}`)).statusCode).toBe(404);

      // The webhook address rules: without the operator's permission, loopback is refused before any request is made.
      const strict = new FetchDomainProbe({ allowPrivate: false, resolve: loopbackResolve, port: context().port });
      expect(await strict.check(domain.hostname, domain.verification.token)).toMatch(/private or loopback/);
      expect(await loopbackProbe(context().port).check(domain.hostname, 'y'.repeat(32))).toMatch(/not this service's token|HTTP 404/);

      const verified = await call(key, 'POST', `${DOMAINS_URL}/${domain.id}/verify`);
      expect(verified.statusCode).toBe(200);
      expect(verified.json()).toMatchObject({ id: domain.id, status: 'active' });
      expect((verified.json() as DomainJson).verifiedAt).not.toBeNull();
      // Active now: the verification answer is for pending domains only.
      expect((await onHost(domain.hostname, path)).statusCode).toBe(404);

      const unrouted = await addDomain(key, uniqueHost('unrouted'));
      const still = await call(key, 'POST', `${DOMAINS_URL}/${unrouted.id}/verify`);
      expect(still.json()).toMatchObject({ status: 'pending', lastCheck: { problem: expect.stringMatching(/could not be reached/) } });
    });

    it('the verification job activates the pending domains whose URL reaches this service', async () => {
      const { key } = await context().t.newCaller('pro');
      const routed = await addDomain(key);
      const unrouted = await addDomain(key, uniqueHost('unrouted'));
      const t = context().t;
      const job = bindJobs({ ...t.stores, lastUsed: new LastUsedBuffer(), clock: () => t.clock.now, domainProbe: loopbackProbe(context().port) }).find(
        (j) => j.name === 'domain-verification',
      )!;
      // The state, not the count: the embedded app's own scheduler runs this job too, and may have got there first.
      await job.run();
      expect((await call(key, 'GET', `${DOMAINS_URL}/${routed.id}`)).json()).toMatchObject({ status: 'active' });
      expect((await call(key, 'GET', `${DOMAINS_URL}/${unrouted.id}`)).json()).toMatchObject({ status: 'pending', lastCheck: { problem: expect.any(String) } });
    });

    it('a code with a vanity slug encodes https://<hostname>/<slug>, redirects there by Host, and nowhere else', async () => {
      const { key } = await context().t.newCaller('pro');
      const domain = await activeDomain(key);
      const api = codesApi(app(), key);
      const res = await api.create({ target: 'https://example.com/spring', domain: domain.id, slug: 'spring-sale' });
      expect(res.statusCode).toBe(201);
      const code = res.json() as { id: string; slug: string; shortUrl: string; domain: string };
      const shortUrl = `https://${domain.hostname}/spring-sale`;
      expect(code).toMatchObject({ slug: 'spring-sale', shortUrl, domain: domain.id });

      const image = await api.image(code.id, '?size=256');
      expect(image.statusCode).toBe(200);
      expect(await decodeQr(image.rawPayload, 'png')).toEqual(readByAll(shortUrl));

      const scanned = await onHost(domain.hostname, '/spring-sale');
      expect(scanned.statusCode).toBe(302);
      expect(scanned.headers.location).toBe('https://example.com/spring');
      expect(scanned.headers['cache-control']).toBe('no-store');
      // This service keeps /r/ and random slugs only: the vanity slug does not exist on its own host, nor under /r/.
      expect((await onHost('qr.service.example', '/spring-sale')).json()).toMatchObject({ status: 404, code: 'not_found' });
      expect((await onHost(`127.0.0.1:${context().port}`, '/spring-sale')).json()).toMatchObject({ status: 404, code: 'not_found' });
      expect((await onHost(domain.hostname, '/r/spring-sale')).statusCode).toBe(404);
      const unknown = await onHost(domain.hostname, '/autumn-sale');
      expect([unknown.statusCode, unknown.headers['content-type']]).toEqual([404, 'text/html; charset=utf-8']);
      // The real thing, through the listening server.
      const overHttp = await httpGet(context().port, '/spring-sale', domain.hostname);
      expect([overHttp.statusCode, overHttp.headers.location]).toEqual([302, 'https://example.com/spring']);
      expect(await context().countedScans(key, code.id)).toBe(2);

      expect((await api.create({ target: 'https://example.com/x', domain: domain.id, slug: 'spring-sale' })).json()).toMatchObject({
        status: 409,
        code: 'slug_taken',
      });
      expect((await api.create({ target: 'https://example.com/x', domain: domain.id, slug: 'No Spaces!' })).statusCode).toBe(400);
      expect((await api.create({ target: 'https://example.com/x', slug: 'lonely' })).statusCode).toBe(400);
      const pending = await addDomain(key);
      expect((await api.create({ target: 'https://example.com/x', domain: pending.id, slug: 'early' })).json()).toMatchObject({
        status: 400,
        errors: [{ field: 'domain' }],
      });
    });

    it('campaign features work on a vanity slug: rules, password; PATCH moves the slug; the domain is deleted only once no code uses it', async () => {
      const { key } = await context().t.newCaller('pro');
      const domain = await activeDomain(key);
      const api = codesApi(app(), key);
      const ruled = (
        await api.create({
          target: 'https://example.com/desk',
          rules: [{ if: { device: ['ios'] }, target: 'https://example.com/ios' }],
          domain: domain.id,
          slug: 'app',
        })
      ).json() as { id: string };
      expect((await onHost(domain.hostname, '/app', { userAgent: USER_AGENTS.ios })).headers.location).toBe('https://example.com/ios');
      expect((await onHost(domain.hostname, '/app', { userAgent: USER_AGENTS.desktop })).headers.location).toBe('https://example.com/desk');

      const locked = (await api.create({ target: 'https://example.com/secret', password: 'open sesame', domain: domain.id, slug: 'vip' })).json() as {
        id: string;
      };
      const form = await onHost(domain.hostname, '/vip');
      expect(form.statusCode).toBe(401);
      expect(form.body).not.toContain('example.com/secret');
      const post = (host: string, password: string) =>
        app().inject({
          method: 'POST',
          url: '/vip',
          headers: { host, 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({ password }).toString(),
        });
      expect((await post(domain.hostname, 'wrong guess')).statusCode).toBe(401);
      const opened = await post(domain.hostname, 'open sesame');
      expect([opened.statusCode, opened.headers.location]).toEqual([302, 'https://example.com/secret']);
      expect((await post('qr.service.example', 'open sesame')).json()).toMatchObject({ status: 404, code: 'not_found' });

      const moved = await api.patch(ruled.id, { slug: 'the-app' });
      expect(moved.json()).toMatchObject({ slug: 'the-app', shortUrl: `https://${domain.hostname}/the-app` });
      expect((await onHost(domain.hostname, '/the-app')).statusCode).toBe(302);
      expect((await onHost(domain.hostname, '/app')).statusCode).toBe(404);
      expect((await api.patch(ruled.id, { slug: 'vip' })).json()).toMatchObject({ status: 409, code: 'slug_taken' });

      // Another account can neither put a code on this domain nor see it.
      const other = codesApi(app(), (await context().t.newCaller('pro')).key);
      expect((await other.create({ target: 'https://evil.example/', domain: domain.id, slug: 'phish' })).json()).toMatchObject({
        status: 400,
        errors: [{ field: 'domain' }],
      });
      expect((await onHost(domain.hostname, '/phish')).statusCode).toBe(404);

      expect((await call(key, 'DELETE', `${DOMAINS_URL}/${domain.id}`)).json()).toMatchObject({ status: 409, code: 'domain_in_use', codes: 2 });
      const off = await api.patch(ruled.id, { domain: null });
      expect(off.json()).toMatchObject({ domain: null, shortUrl: expect.stringMatching(/^https:\/\/qr\.service\.example\/r\/[A-Za-z0-9]{8}$/) });
      expect((await api.remove(locked.id)).statusCode).toBe(204);
      expect((await call(key, 'DELETE', `${DOMAINS_URL}/${domain.id}`)).statusCode).toBe(204);
      expect((await onHost(domain.hostname, '/the-app')).json()).toMatchObject({ status: 404, code: 'not_found' });
    });
  });
}
