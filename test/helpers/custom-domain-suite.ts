// Custom domains and vanity slugs, run in the embedded default and in Redis mode: proof by a TXT record on a real DNS
// server on
// loopback, the reachability check by a real HTTP request with the domain's Host, scans by Host.
import { randomUUID } from 'node:crypto';
import { request, type IncomingMessage } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { DnsTxtLookup } from '../../src/adapters/dns/txt-lookup.dns.js';
import { FetchDomainProbe } from '../../src/adapters/webhooks/domain-probe.fetch.js';
import { FetchWebhookSender, type Resolve } from '../../src/adapters/webhooks/webhook-sender.fetch.js';
import { bindJobs } from '../../src/services/background-jobs.js';
import { LastUsedBuffer } from '../../src/services/last-used-buffer.js';
import type { TestApp } from './app.js';
import { codesApi, USER_AGENTS } from './codes.js';
import { waitFor } from './wait.js';
import { decodeQr, readByAll } from './decode.js';
import type { DnsServer } from './dns-server.js';
import { startWebhookReceiver } from './webhook-receiver.js';

export const DOMAINS_URL = '/api/v1/QRManager/domains';
/** The service's own PUBLIC_URL in these suites. */
export const SERVICE_URL = 'https://qr.service.example';

/**
 * Every hostname reaches the test's server on loopback, except `unrouted-…` ones (127.0.0.2, where nothing listens).
 */
export const loopbackResolve: Resolve = async (hostname) => [
  { address: hostname.startsWith('unrouted-') ? '127.0.0.2' : '127.0.0.1', family: 4 },
];

/**
 * The check as production builds it, but allowed onto loopback and pointed at the port the test's server listens on.
 */
export function loopbackProbe(port: number): FetchDomainProbe {
  return new FetchDomainProbe({ allowPrivate: true, resolve: loopbackResolve, port });
}

export interface DomainJson {
  id: string;
  hostname: string;
  status: 'pending' | 'active' | 'suspended' | 'expired';
  verification: { type: 'dns-txt'; name: string; value: string; token: string; url: string };
  lastCheck: { at: string; problem: string | null } | null;
  verifiedAt: string | null;
}

export interface SuiteContext {
  t: TestApp;
  port: number;
  /** The DNS server the app asks (DNS_SERVERS) for the TXT proofs. */
  dns: DnsServer;
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
    app().inject({ method: 'GET', url, headers: { host, 'user-agent': extra.userAgent ?? USER_AGENTS.other } });
  const addDomain = async (key: string, hostname = uniqueHost()): Promise<DomainJson> => {
    const res = await call(key, 'POST', DOMAINS_URL, { hostname });
    if (res.statusCode !== 201) throw new Error(`add domain: ${res.statusCode} ${res.body}`);
    return res.json() as DomainJson;
  };
  const prove = (domain: DomainJson) => context().dns.setTxt(domain.verification.name, [domain.verification.value]);
  const activeDomain = async (key: string): Promise<DomainJson> => {
    const domain = await addDomain(key);
    prove(domain);
    const verified = await call(key, 'POST', `${DOMAINS_URL}/${domain.id}/verify`);
    expect(verified.json()).toMatchObject({ status: 'active' });
    return verified.json() as DomainJson;
  };

  describe(`custom domains (${mode})`, () => {
    it('refuses what cannot be a custom domain, a plan without any, and a hostname another account holds', async () => {
      const free = await context().t.newCaller('free');
      expect((await call(free.key, 'POST', DOMAINS_URL, { hostname: uniqueHost() })).json()).toMatchObject({
        status: 403,
        code: 'plan_upgrade_required',
      });
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
        expect(res.json(), hostname).toMatchObject({
          status: 400,
          code: 'invalid_request',
          errors: [{ field: 'hostname' }],
        });
      }
      const idn = `Bücher-${randomUUID().slice(0, 6)}.Example.`;
      const created = await call(key, 'POST', DOMAINS_URL, { hostname: idn });
      expect(created.statusCode).toBe(201);
      const domain = created.json() as DomainJson;
      expect(domain.hostname).toMatch(/^xn--bcher-.*\.example$/);
      expect(domain).toMatchObject({ status: 'pending', verifiedAt: null, lastCheck: null });
      expect(domain.verification.url).toBe(
        `http://${domain.hostname}/.well-known/qrm-domain/${domain.verification.token}`,
      );
      expect(created.headers.location).toBe(`${DOMAINS_URL}/${domain.id}`);

      const other = await context().t.newCaller('pro');
      expect((await call(other.key, 'POST', DOMAINS_URL, { hostname: domain.hostname })).json()).toMatchObject({
        status: 409,
        code: 'hostname_taken',
      });
      expect((await call(other.key, 'GET', `${DOMAINS_URL}/${domain.id}`)).statusCode).toBe(404);
      expect((await call(other.key, 'DELETE', `${DOMAINS_URL}/${domain.id}`)).statusCode).toBe(404);
      expect((await call(other.key, 'POST', `${DOMAINS_URL}/${domain.id}/verify`)).statusCode).toBe(404);
      expect((await call(other.key, 'GET', DOMAINS_URL)).json()).toEqual({ items: [], nextCursor: null });
      expect((await call(key, 'GET', DOMAINS_URL)).json()).toEqual({ items: [domain], nextCursor: null });
    });

    it(
      'a claim never activates without its TXT record, even ' + 'when the HTTP check passes; with the record it does',
      async () => {
        const { key } = await context().t.newCaller('pro');
        const domain = await addDomain(key);
        expect(domain.verification).toEqual({
          type: 'dns-txt',
          name: `_qrm-challenge.${domain.hostname}`,
          value: domain.verification.token,
          token: domain.verification.token,
          url: `http://${domain.hostname}/.well-known/qrm-domain/${domain.verification.token}`,
        });
        const path = `/.well-known/qrm-domain/${domain.verification.token}`;
        const answer = await onHost(domain.hostname, path);
        expect([answer.statusCode, answer.body]).toEqual([200, domain.verification.token]);
        expect((await onHost('other.brand.example', path)).statusCode).toBe(404);
        expect((await onHost(domain.hostname, `/.well-known/qrm-domain/${'x'.repeat(32)}`)).statusCode).toBe(404);
        // The HTTP check passes (the hostname reaches this service and answers the token)...
        expect(await loopbackProbe(context().port).check(domain.hostname, domain.verification.token)).toBeNull();
        // The webhook address rules: without the operator's permission, loopback is refused before any request is made.
        const strict = new FetchDomainProbe({ allowPrivate: false, resolve: loopbackResolve, port: context().port });
        expect(await strict.check(domain.hostname, domain.verification.token)).toMatch(/private or loopback/);

        // ...but without the TXT record (none, then one with another value) the claim stays pending.
        const none = await call(key, 'POST', `${DOMAINS_URL}/${domain.id}/verify`);
        expect(none.json()).toMatchObject({
          status: 'pending',
          verifiedAt: null,
          lastCheck: { problem: `no TXT record ${domain.verification.name}` },
        });
        context().dns.setTxt(domain.verification.name, ['y'.repeat(32)]);
        const wrong = await call(key, 'POST', `${DOMAINS_URL}/${domain.id}/verify`);
        expect(wrong.json()).toMatchObject({
          status: 'pending',
          lastCheck: { problem: expect.stringMatching(/does not hold this domain's token/) },
        });
        expect(context().dns.asked(domain.verification.name)).toBeGreaterThanOrEqual(2);

        prove(domain);
        const verified = await call(key, 'POST', `${DOMAINS_URL}/${domain.id}/verify`);
        expect(verified.json()).toMatchObject({ id: domain.id, status: 'active', lastCheck: { problem: null } });
        expect((verified.json() as DomainJson).verifiedAt).not.toBeNull();
        // Active now: the well-known answer is for domains not yet active only.
        expect((await onHost(domain.hostname, path)).statusCode).toBe(404);

        // Proved but not routed here: active all the same, and the owner is told scans do not reach the service yet.
        const unrouted = await addDomain(key, uniqueHost('unrouted'));
        prove(unrouted);
        const advised = await call(key, 'POST', `${DOMAINS_URL}/${unrouted.id}/verify`);
        expect(advised.json()).toMatchObject({
          status: 'active',
          lastCheck: { problem: expect.stringMatching(/^proved by DNS, but .*could not be reached/) },
        });
      },
    );

    it(
      'the job: a pending claim expires after 7 days (its hostname free again); an active domain whose record is ' +
        'gone is suspended and its owner told',
      async () => {
        const t = context().t;
        const receiver = await startWebhookReceiver();
        try {
          const job = bindJobs({
            ...t.stores,
            lastUsed: new LastUsedBuffer(),
            clock: () => t.clock.now,
            domainProbe: loopbackProbe(context().port),
            domainDns: new DnsTxtLookup({ servers: [context().dns.address] }),
            webhookSender: new FetchWebhookSender({ allowPrivate: true }),
          }).find((j) => j.name === 'domain-verification')!;
          const { key, accountId } = await t.newCaller('pro');
          const hook = await call(key, 'POST', '/api/v1/QRManager/webhooks', {
            url: receiver.url,
            events: ['domain.suspended'],
          });
          expect(hook.statusCode).toBe(201);
          const realNow = t.clock.now;
          // Claimed eight days ago and never proved; proved the same day and not checked since.
          t.clock.now = new Date(realNow.getTime() - 8 * 24 * 60 * 60_000);
          const stale = await addDomain(key);
          const proved = await activeDomain(key);
          const kept = (
            await codesApi(app(), key).create({ target: 'https://example.com/kept', domain: proved.id, slug: 'kept' })
          ).json() as { id: string };
          t.clock.now = realNow;
          expect((await onHost(proved.hostname, '/kept')).statusCode).toBe(302);
          const fresh = await addDomain(key);
          prove(fresh);
          context().dns.setTxt(proved.verification.name, []);
          // The state, not the count: the embedded app's own scheduler runs this job too, and may have got there first.
          await job.run();
          expect((await call(key, 'GET', `${DOMAINS_URL}/${stale.id}`)).json()).toMatchObject({ status: 'expired' });
          expect((await call(key, 'GET', `${DOMAINS_URL}/${fresh.id}`)).json()).toMatchObject({ status: 'active' });
          const suspended = (await call(key, 'GET', `${DOMAINS_URL}/${proved.id}`)).json() as DomainJson;
          expect(suspended).toMatchObject({
            status: 'suspended',
            lastCheck: { problem: `no TXT record ${proved.verification.name}` },
          });

          // Its codes stop answering, and no new code goes on it.
          expect((await onHost(proved.hostname, '/kept')).statusCode).toBe(404);
          expect(
            (
              await codesApi(app(), key).create({ target: 'https://example.com/x', domain: proved.id, slug: 'late' })
            ).json(),
          ).toMatchObject({
            status: 400,
            errors: [{ field: 'domain' }],
          });
          // The owner was told, signed the Standard Webhooks way (checked by the official library).
          await waitFor('the domain.suspended webhook', () => receiver.received.length >= 1);
          const message = receiver.received[0]!;
          const headers = Object.fromEntries(
            ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(message.headers[h])]),
          );
          const secret = await t.stores.batches!.webhookSecret(accountId);
          expect(new Webhook(secret).verify(message.body, headers)).toMatchObject({
            type: 'domain.suspended',
            data: {
              id: proved.id,
              hostname: proved.hostname,
              status: 'suspended',
              problem: `no TXT record ${proved.verification.name}`,
            },
          });

          // The expired claim's hostname is free for another account; the record back proves the suspended domain
          // again.
          const other = await t.newCaller('pro');
          expect((await call(other.key, 'POST', DOMAINS_URL, { hostname: stale.hostname })).statusCode).toBe(201);
          prove(proved);
          expect((await call(key, 'POST', `${DOMAINS_URL}/${proved.id}/verify`)).json()).toMatchObject({
            status: 'active',
          });
          expect((await onHost(proved.hostname, '/kept')).statusCode).toBe(302);
          expect((await codesApi(app(), key).remove(kept.id)).statusCode).toBe(204);
        } finally {
          await receiver.close();
        }
      },
    );

    it("a deleted domain's hostname is free for another account only once its TXT record is gone", async () => {
      const { key } = await context().t.newCaller('pro');
      const domain = await activeDomain(key);
      expect((await call(key, 'DELETE', `${DOMAINS_URL}/${domain.id}`)).statusCode).toBe(204);
      const other = await context().t.newCaller('pro');
      const refused = await call(other.key, 'POST', DOMAINS_URL, { hostname: domain.hostname });
      expect(refused.json()).toMatchObject({
        status: 409,
        code: 'hostname_taken',
        detail: expect.stringContaining(`remove the TXT record ${domain.verification.name}`),
      });
      context().dns.setTxt(domain.verification.name, []);
      expect((await call(other.key, 'POST', DOMAINS_URL, { hostname: domain.hostname })).statusCode).toBe(201);
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
      expect((await onHost('qr.service.example', '/spring-sale')).json()).toMatchObject({
        status: 404,
        code: 'not_found',
      });
      expect((await onHost(`127.0.0.1:${context().port}`, '/spring-sale')).json()).toMatchObject({
        status: 404,
        code: 'not_found',
      });
      expect((await onHost(domain.hostname, '/r/spring-sale')).statusCode).toBe(404);
      const unknown = await onHost(domain.hostname, '/autumn-sale');
      expect([unknown.statusCode, unknown.headers['content-type']]).toEqual([404, 'text/html; charset=utf-8']);
      // The real thing, through the listening server.
      const overHttp = await httpGet(context().port, '/spring-sale', domain.hostname);
      expect([overHttp.statusCode, overHttp.headers.location]).toEqual([302, 'https://example.com/spring']);
      expect(await context().countedScans(key, code.id)).toBe(2);

      expect(
        (await api.create({ target: 'https://example.com/x', domain: domain.id, slug: 'spring-sale' })).json(),
      ).toMatchObject({
        status: 409,
        code: 'slug_taken',
      });
      expect(
        (await api.create({ target: 'https://example.com/x', domain: domain.id, slug: 'No Spaces!' })).statusCode,
      ).toBe(400);
      expect((await api.create({ target: 'https://example.com/x', slug: 'lonely' })).statusCode).toBe(400);
      const pending = await addDomain(key);
      expect(
        (await api.create({ target: 'https://example.com/x', domain: pending.id, slug: 'early' })).json(),
      ).toMatchObject({
        status: 400,
        errors: [{ field: 'domain' }],
      });
    });

    it(
      "hosts keep to their owners: on a customer's domain only its account's codes answer; API, portal and " +
        "signed URLs only on the service's hosts",
      async () => {
        const owner = await context().t.newCaller('pro');
        const domain = await activeDomain(owner.key);
        const own = (await codesApi(app(), owner.key).create({ target: 'https://example.com/own' })).json() as {
          slug: string;
        };
        const other = await context().t.newCaller('pro');
        const foreign = (await codesApi(app(), other.key).create({ target: 'https://evil.example/phish' })).json() as {
          slug: string;
        };

        // Another account's code through the customer's domain: the scan's 404 page, never the 302.
        const phish = await onHost(domain.hostname, `/r/${foreign.slug}`);
        expect([phish.statusCode, phish.headers.location]).toEqual([404, undefined]);
        expect((await httpGet(context().port, `/r/${foreign.slug}`, domain.hostname)).statusCode).toBe(404);
        expect((await onHost(domain.hostname, `/r/${own.slug}`)).headers.location).toBe('https://example.com/own');
        expect((await onHost('qr.service.example', `/r/${foreign.slug}`)).headers.location).toBe(
          'https://evil.example/phish',
        );
        expect((await onHost(`127.0.0.1:${context().port}`, `/r/${foreign.slug}`)).statusCode).toBe(302);
        // A hostname that reaches this service but is no active custom domain (left pointing here, or pending) serves
        // nothing.
        expect((await onHost(uniqueHost('stale'), `/r/${foreign.slug}`)).statusCode).toBe(404);
        const pending = await addDomain(other.key);
        expect((await onHost(pending.hostname, `/r/${foreign.slug}`)).statusCode).toBe(404);

        // The portal, the API, the API's documents and signed URLs: 404 on the customer's domain, as before on the
        // service's own host.
        for (const path of [
          '/portal',
          '/portal/signin',
          '/docs',
          '/openapi.json',
          `/i/sk_${'a'.repeat(20)}/png?data=x&sig=${'0'.repeat(64)}`,
        ]) {
          const onCustomer = await onHost(domain.hostname, path);
          expect(onCustomer.statusCode, path).toBe(404);
          expect((await onHost('qr.service.example', path)).statusCode, path).not.toBe(404);
        }
        const api = (host: string) =>
          app().inject({ method: 'GET', url: DOMAINS_URL, headers: { host, 'x-api-key': owner.key } });
        expect((await api(domain.hostname)).json()).toMatchObject({ status: 404, code: 'not_found' });
        expect((await api('qr.service.example')).statusCode).toBe(200);
        const posted = await app().inject({
          method: 'POST',
          url: DOMAINS_URL,
          headers: { host: domain.hostname, 'x-api-key': owner.key, 'content-type': 'application/json' },
          payload: JSON.stringify({ hostname: uniqueHost() }),
        });
        expect(posted.statusCode).toBe(404);
        // The probes answer on any Host.
        expect((await onHost(domain.hostname, '/healthz')).statusCode).toBe(200);
      },
    );

    it(
      'campaign features work on a vanity slug: rules, password; PATCH moves the slug; the domain is deleted ' +
        'only once no code uses it',
      async () => {
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
        expect((await onHost(domain.hostname, '/app', { userAgent: USER_AGENTS.ios })).headers.location).toBe(
          'https://example.com/ios',
        );
        expect((await onHost(domain.hostname, '/app', { userAgent: USER_AGENTS.desktop })).headers.location).toBe(
          'https://example.com/desk',
        );

        const locked = (
          await api.create({
            target: 'https://example.com/secret',
            password: 'open sesame',
            domain: domain.id,
            slug: 'vip',
          })
        ).json() as {
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
        expect((await post('qr.service.example', 'open sesame')).json()).toMatchObject({
          status: 404,
          code: 'not_found',
        });

        const moved = await api.patch(ruled.id, { slug: 'the-app' });
        expect(moved.json()).toMatchObject({ slug: 'the-app', shortUrl: `https://${domain.hostname}/the-app` });
        expect((await onHost(domain.hostname, '/the-app')).statusCode).toBe(302);
        expect((await onHost(domain.hostname, '/app')).statusCode).toBe(404);
        expect((await api.patch(ruled.id, { slug: 'vip' })).json()).toMatchObject({ status: 409, code: 'slug_taken' });

        // Another account can neither put a code on this domain nor see it.
        const other = codesApi(app(), (await context().t.newCaller('pro')).key);
        expect(
          (await other.create({ target: 'https://evil.example/', domain: domain.id, slug: 'phish' })).json(),
        ).toMatchObject({
          status: 400,
          errors: [{ field: 'domain' }],
        });
        expect((await onHost(domain.hostname, '/phish')).statusCode).toBe(404);

        expect((await call(key, 'DELETE', `${DOMAINS_URL}/${domain.id}`)).json()).toMatchObject({
          status: 409,
          code: 'domain_in_use',
          codes: 2,
        });
        const off = await api.patch(ruled.id, { domain: null });
        expect(off.json()).toMatchObject({
          domain: null,
          shortUrl: expect.stringMatching(/^https:\/\/qr\.service\.example\/r\/[A-Za-z0-9]{8}$/),
        });
        expect((await api.remove(locked.id)).statusCode).toBe(204);
        expect((await call(key, 'DELETE', `${DOMAINS_URL}/${domain.id}`)).statusCode).toBe(204);
        expect((await onHost(domain.hostname, '/the-app')).json()).toMatchObject({ status: 404, code: 'not_found' });
      },
    );
  });
}
