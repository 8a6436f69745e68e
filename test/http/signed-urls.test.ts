// Signing keys and signed image URLs: the image for <img src> with no API key, cached for good, refused when tampered,
// expired or revoked, metered each answer.
import { describe, expect, it, vi } from 'vitest';
import { periodOf } from '../../src/domain/period.js';
import { PlanCatalogue } from '../../src/domain/plan-catalogue.js';
import { canonicalString, signCanonical } from '../../src/domain/signed-url.js';
import { generate, useTestApp } from '../helpers/app.js';
import { decodeQr, readByAll } from '../helpers/decode.js';
import { newSigningKey, signedUrl, SIGNING_KEYS_URL } from '../helpers/signed-urls.js';

const NOW = new Date('2026-06-15T12:00:00Z');
const nowSeconds = () => Math.floor(t.clock.now.getTime() / 1000);
const t = useTestApp({ now: NOW });

describe('signing keys', () => {
  it('shows the secret once at creation, lists keys without it, and holds an account to five active keys', async () => {
    const { key } = await t.newCaller('free');
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    const first = await t.app.inject({
      method: 'POST',
      url: SIGNING_KEYS_URL,
      headers,
      payload: { name: 'newsletter' },
    });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toEqual({
      id: expect.stringMatching(/^sk_[A-Za-z0-9_-]{20}$/),
      secret: expect.stringMatching(/^qrs_[A-Za-z0-9_-]{43}$/),
      name: 'newsletter',
      createdAt: NOW.toISOString(),
    });
    for (let i = 0; i < 4; i++)
      expect((await t.app.inject({ method: 'POST', url: SIGNING_KEYS_URL, headers, payload: {} })).statusCode).toBe(
        201,
      );
    const sixth = await t.app.inject({ method: 'POST', url: SIGNING_KEYS_URL, headers, payload: {} });
    expect(sixth.statusCode).toBe(409);
    expect(sixth.json()).toMatchObject({ code: 'key_limit_reached', limit: 5 });
    const list = await t.app.inject({ method: 'GET', url: SIGNING_KEYS_URL, headers: { 'x-api-key': key } });
    expect(list.json().items).toHaveLength(5);
    expect(list.body).not.toContain('qrs_');
    expect(list.json().items).toContainEqual({
      id: first.json().id,
      name: 'newsletter',
      createdAt: NOW.toISOString(),
      revokedAt: null,
    });
  });

  it('stores the secret sealed, not in the clear', async () => {
    const { key, accountId } = await t.newCaller('free');
    const created = await newSigningKey(t.app, key);
    const stored = await t.stores.signingKeys.findActive(created.id);
    expect(stored?.accountId).toBe(accountId);
    expect(stored?.sealedSecret).not.toContain(created.secret.slice(4));
  });

  it("never lets one account revoke another's key", async () => {
    const a = await t.newCaller('free');
    const b = await t.newCaller('free');
    const created = await newSigningKey(t.app, a.key);
    const res = await t.app.inject({
      method: 'DELETE',
      url: `${SIGNING_KEYS_URL}/${created.id}`,
      headers: { 'x-api-key': b.key },
    });
    expect(res.statusCode).toBe(404);
    expect(await t.stores.signingKeys.findActive(created.id)).toBeDefined();
  });
});

describe('GET /i/{keyId}/{format}', () => {
  it(
    'answers the image with no API key, a strong ETag and ' + 'a year of immutable caching, and 304 on If-None-Match',
    async () => {
      const { key, accountId } = await t.newCaller('free');
      const signing = await newSigningKey(t.app, key);
      const url = signedUrl(signing, 'png', { content: 'https://example.com/embed', type: 'url', size: 256 });
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers.etag).toMatch(/^"[^W]/);
      expect(await decodeQr(res.rawPayload, 'png')).toEqual(readByAll('https://example.com/embed'));
      const again = await t.app.inject({
        method: 'GET',
        url,
        headers: { 'if-none-match': res.headers.etag as string },
      });
      expect(again.statusCode).toBe(304);
      expect(again.headers.etag).toBe(res.headers.etag);
      expect(again.rawPayload).toHaveLength(0);
      // Each answer we give counts as a request (a CDN's hits never reach us); one distinct QR.
      expect(await t.stores.meter.usage(accountId, periodOf(NOW))).toEqual({ requests: 2, qrs: 1 });
    },
  );

  it('gives the same bytes as POST generate with the same fields', async () => {
    const { key } = await t.newCaller('pro');
    const signing = await newSigningKey(t.app, key);
    const fields = {
      content: 'same image',
      type: 'text',
      size: 300,
      margin: 2,
      errorCorrection: 'Q',
      darkColor: '#123456',
      lightColor: '#FAFAFA',
    } as const;
    const posted = await generate(t.app, key, { ...fields, outputFormat: 'svg' });
    const got = await t.app.inject({ method: 'GET', url: signedUrl(signing, 'svg', fields) });
    expect(got.statusCode).toBe(200);
    expect(got.headers['content-type']).toBe('image/svg+xml');
    expect(got.rawPayload.equals(posted.rawPayload)).toBe(true);
  });

  it('takes structured content as a JSON string and nested options by dotted names', async () => {
    const { key } = await t.newCaller('pro');
    const signing = await newSigningKey(t.app, key);
    const content = JSON.stringify({ ssid: 'Cafe', password: 'p@ss;word', encryption: 'WPA' });
    const res = await t.app.inject({
      method: 'GET',
      url: signedUrl(signing, 'png', { content, type: 'wifi', 'frame.text': 'Scan me', size: 400 }),
    });
    expect(res.statusCode).toBe(200);
    expect((await decodeQr(res.rawPayload, 'png')).zxing).toBe('WIFI:T:WPA;S:Cafe;P:p@ss\\;word;;');
  });

  it(
    'refuses a tampered URL, a wrong secret and a missing ' + 'signature with 403 invalid_signature, never cached',
    async () => {
      const { key } = await t.newCaller('free');
      const signing = await newSigningKey(t.app, key);
      const url = signedUrl(signing, 'png', { content: 'https://example.com/a', type: 'url' });
      const tampered = url.replace('example.com%2Fa', 'example.com%2Fb');
      const wrongSecret = signedUrl({ id: signing.id, secret: `${signing.secret}x` }, 'png', {
        content: 'https://example.com/a',
        type: 'url',
      });
      const unsigned = url.replace(/&sig=.*/, '');
      const otherFormat = url.replace('/png?', '/webp?');
      for (const bad of [
        tampered,
        wrongSecret,
        unsigned,
        otherFormat,
        url.replace(signing.id, 'sk_AAAAAAAAAAAAAAAAAAAA'),
      ]) {
        const res = await t.app.inject({ method: 'GET', url: bad });
        expect(res.statusCode, bad).toBe(403);
        expect(res.json().code).toBe('invalid_signature');
        expect(res.headers['cache-control']).toBe('no-store');
      }
    },
  );

  it('answers 410 url_expired after exp, and caches no longer than exp before it', async () => {
    const { key } = await t.newCaller('free');
    const signing = await newSigningKey(t.app, key);
    const url = signedUrl(signing, 'png', {
      content: 'https://example.com/soon',
      type: 'url',
      exp: nowSeconds() + 600,
    });
    const fresh = await t.app.inject({ method: 'GET', url });
    expect(fresh.statusCode).toBe(200);
    expect(fresh.headers['cache-control']).toBe('public, max-age=600, immutable');
    t.clock.now = new Date(NOW.getTime() + 601_000);
    try {
      const late = await t.app.inject({ method: 'GET', url });
      expect(late.statusCode).toBe(410);
      expect(late.json().code).toBe('url_expired');
    } finally {
      t.clock.now = NOW;
    }
  });

  it('stops answering URLs of a revoked key', async () => {
    const { key } = await t.newCaller('free');
    const signing = await newSigningKey(t.app, key);
    const url = signedUrl(signing, 'png', { content: 'https://example.com/r', type: 'url' });
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(200);
    const revoked = await t.app.inject({
      method: 'DELETE',
      url: `${SIGNING_KEYS_URL}/${signing.id}`,
      headers: { 'x-api-key': key },
    });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().revokedAt).toBe(NOW.toISOString());
    const after = await t.app.inject({ method: 'GET', url });
    expect(after.statusCode).toBe(403);
    expect(after.json().code).toBe('invalid_signature');
  });

  it(
    "holds signed URLs to the account's plan and options: 403 for svg on free, 400 for an unknown or repeated " +
      'parameter',
    async () => {
      const { key } = await t.newCaller('free');
      const signing = await newSigningKey(t.app, key);
      const svg = await t.app.inject({
        method: 'GET',
        url: signedUrl(signing, 'svg', { content: 'https://example.com', type: 'url' }),
      });
      expect(svg.statusCode).toBe(403);
      expect(svg.json().code).toBe('plan_upgrade_required');
      const unknown = await t.app.inject({
        method: 'GET',
        url: signedUrl(signing, 'png', { content: 'https://example.com', type: 'url', colour: 'red' }),
      });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json()).toMatchObject({
        code: 'invalid_request',
        errors: [{ field: 'colour', detail: 'unknown parameter' }],
      });
      const path = `/i/${signing.id}/png`;
      const canonical = canonicalString(path, [
        ['content', 'https://example.com'],
        ['size', '200'],
        ['size', '300'],
        ['type', 'url'],
      ]);
      const repeated = await t.app.inject({
        method: 'GET',
        url: `${canonical}&sig=${signCanonical(signing.secret, canonical)}`,
      });
      expect(repeated.statusCode).toBe(400);
      expect(repeated.json().errors).toEqual([{ field: 'size', detail: 'given more than once' }]);
      const badFormat = await t.app.inject({
        method: 'GET',
        url: signedUrl(signing, 'gif', { content: 'https://example.com', type: 'url' }),
      });
      expect(badFormat.json().code).toBe('unsupported_format');
    },
  );

  it("holds every signed URL of an account to the plan's burst, and counts nothing past it", async () => {
    const { key, accountId } = await t.newCaller('free');
    const [one, two] = [await newSigningKey(t.app, key, 'one'), await newSigningKey(t.app, key, 'two')];
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await t.app.inject({
        method: 'GET',
        url: signedUrl(i % 2 ? one : two, 'png', { content: 'https://example.com/burst', type: 'url' }),
      });
      statuses.push(res.statusCode);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.slice(10)).toEqual([429, 429]);
    expect((await t.stores.meter.usage(accountId, periodOf(NOW))).requests).toBe(10);
  });

  it(
    'answers a URL it has seen before from what holds ' + 'now: its design as edited, its account as re-planned',
    async () => {
      const { key, accountId } = await t.newCaller('pro');
      const signing = await newSigningKey(t.app, key);
      const headers = { 'x-api-key': key, 'content-type': 'application/json' };
      const design = await t.app.inject({
        method: 'POST',
        url: '/api/v1/QRManager/designs',
        headers,
        payload: { name: 'ink', options: { darkColor: '#112233' } },
      });
      expect(design.statusCode).toBe(201);
      const url = signedUrl(signing, 'svg', {
        content: 'https://example.com/seen',
        type: 'url',
        design: design.json().id,
      });
      const before = await t.app.inject({ method: 'GET', url });
      expect(before.statusCode).toBe(200);
      expect(before.body).toContain('#112233');
      const edited = await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/QRManager/designs/${design.json().id}`,
        headers,
        payload: { options: { darkColor: '#445566' } },
      });
      expect(edited.statusCode).toBe(200);
      const after = await t.app.inject({
        method: 'GET',
        url,
        headers: { 'if-none-match': before.headers.etag as string },
      });
      expect(after.statusCode).toBe(200);
      expect(after.headers.etag).not.toBe(before.headers.etag);
      expect(after.body).toContain('#445566');
      await t.stores.accounts.setPlan(accountId, 'free');
      const downgraded = await t.app.inject({
        method: 'GET',
        url: signedUrl(signing, 'svg', { content: 'https://example.com/seen', type: 'url' }),
      });
      const again = await t.app.inject({ method: 'GET', url });
      for (const res of [downgraded, again]) {
        expect(res.statusCode).toBe(403);
        expect(res.json().code).toBe('plan_upgrade_required');
      }
    },
  );

  it("checks the account's plan once for a URL's first answer, as for every later one", async () => {
    const { key } = await t.newCaller('free');
    const signing = await newSigningKey(t.app, key);
    const fields = { content: 'https://example.com/once', type: 'url' };
    const { headers } = await t.app.inject({ method: 'GET', url: signedUrl(signing, 'png', fields) });
    // Another URL for the same image (its own exp): new to the route, and answered 304, so nothing is drawn.
    const url = signedUrl(signing, 'png', { ...fields, exp: nowSeconds() + 600 });
    const planLookups = vi.spyOn(PlanCatalogue.prototype, 'get');
    try {
      const lookupsOf = async () => {
        planLookups.mockClear();
        const res = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': headers.etag! } });
        expect(res.statusCode).toBe(304);
        return planLookups.mock.calls.length;
      };
      const first = await lookupsOf();
      expect(first).toBeGreaterThan(0);
      expect(first).toBe(await lookupsOf());
    } finally {
      planLookups.mockRestore();
    }
  });

  it('verifies a URL built with URLSearchParams (spaces as +)', async () => {
    const { key } = await t.newCaller('free');
    const signing = await newSigningKey(t.app, key);
    const params = { content: 'hello world + more', type: 'text' };
    const path = `/i/${signing.id}/png`;
    const sig = signCanonical(signing.secret, canonicalString(path, Object.entries(params)));
    const res = await t.app.inject({
      method: 'GET',
      url: `${path}?${new URLSearchParams({ ...params, sig }).toString()}`,
    });
    expect(res.statusCode).toBe(200);
    expect((await decodeQr(res.rawPayload, 'png')).zxing).toBe('hello world + more');
  });
});
