// The portal pages over HTTP: keys shown once and limited to five, usage on the dashboard, the playground's quota and
// read-back, plans, headers.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { periodOf } from '../../src/domain/period.js';
import { createTestApp, useTestApp, generate } from '../helpers/app.js';
import { decodeQr, readByAll } from '../helpers/decode.js';
import { csrfTokenIn, PortalClient } from '../helpers/portal-client.js';

const t = useTestApp();

let seq = 0;
async function signedIn(): Promise<{ client: PortalClient; accountId: string }> {
  const client = new PortalClient(t.app);
  await client.signInLocally(`pages${++seq}-${Date.now()}@example.com`);
  const session = (await client.json('GET', '/portal/api/session')).json() as { account: { id: string } };
  return { client, accountId: session.account.id };
}

async function createKey(client: PortalClient, name: string) {
  const _csrf = await client.csrfFrom('/portal/keys');
  return client.postForm('/portal/keys', { name, _csrf });
}

function secretIn(html: string): string {
  const secret = /id="secret"[^>]*value="(qrm_live_[0-9A-Za-z]{36})"/.exec(html)?.[1];
  if (!secret) throw new Error('no secret on the page');
  return secret;
}

function progress(html: string, id: 'requests' | 'qrs'): { value: number; max: number } {
  const section = new RegExp(`id="usage-${id}"[\\s\\S]*?<progress[^>]*max="(\\d+)" value="(\\d+)"`).exec(html);
  return { max: Number(section![1]), value: Number(section![2]) };
}

describe('API keys page', () => {
  it('shows a new secret once, which the API then accepts; the list shows only its hint', async () => {
    const { client } = await signedIn();
    const created = await createKey(client, 'ci server');
    expect(created.statusCode).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const secret = secretIn(created.body);
    expect(
      (await generate(t.app, secret, { content: 'https://example.com', type: 'url', outputFormat: 'png' })).statusCode,
    ).toBe(200);

    const list = await client.get('/portal/keys');
    expect(list.body).toContain('ci server');
    expect(list.body).toContain(`qrm_live_…${secret.slice(-4)}`);
    expect(list.body).not.toContain(secret);
  });

  it('explains the five-key limit when it is reached, and refuses a sixth', async () => {
    const { client } = await signedIn();
    for (let i = 1; i <= 5; i++) expect((await createKey(client, `key ${i}`)).statusCode).toBe(201);
    const page = await client.get('/portal/keys');
    expect(page.body).toContain('id="key-limit"');
    expect(page.body).toContain('5 active keys, the most an account may hold');
    const sixth = await createKey(client, 'key 6');
    expect(sixth.statusCode).toBe(409);
    expect(sixth.body).toContain('at most 5 active keys');
  });

  it('revokes a key, after which the API refuses it', async () => {
    const { client, accountId } = await signedIn();
    const secret = secretIn((await createKey(client, 'short-lived')).body);
    const [key] = await t.stores.keys.list(accountId);
    const _csrf = await client.csrfFrom('/portal/keys');
    const res = await client.postForm(`/portal/keys/${key!.id}/revoke`, { _csrf });
    expect(res.statusCode).toBe(303);
    expect((await client.get(res.headers.location as string)).body).toContain('The key was revoked');
    const refused = await generate(t.app, secret, { content: 'https://example.com', type: 'url', outputFormat: 'png' });
    expect(refused.statusCode).toBe(401);
  });

  it('refuses an empty or overlong name with the reason on the page', async () => {
    const { client } = await signedIn();
    const res = await createKey(client, 'x'.repeat(65));
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('key name must be 1 to 64 printable characters');
  });
});

describe('dashboard', () => {
  it('shows the plan, this month’s usage as progress bars, and the reset date', async () => {
    const { client } = await signedIn();
    const secret = secretIn((await createKey(client, 'dash')).body);
    const before = (await client.get('/portal/')).body;
    expect(before).toContain('Free');
    expect(progress(before, 'requests')).toEqual({ value: 0, max: 500 });
    expect(progress(before, 'qrs')).toEqual({ value: 0, max: 5 });
    for (const content of ['one', 'two', 'one'])
      await generate(t.app, secret, { content, type: 'text', outputFormat: 'png' });
    const after = (await client.get('/portal/')).body;
    expect(progress(after, 'requests')).toEqual({ value: 3, max: 500 });
    expect(progress(after, 'qrs')).toEqual({ value: 2, max: 5 });
    const reset = new Date(Date.UTC(t.clock.now.getUTCFullYear(), t.clock.now.getUTCMonth() + 1, 1))
      .toISOString()
      .slice(0, 10);
    expect(after).toContain(reset);
  });
});

describe('playground', () => {
  it('generates a decodable code that counts against the account’s quota like an API call', async () => {
    const { client, accountId } = await signedIn();
    const period = periodOf(t.clock.now);
    const res = await client.submitPlayground({
      type: 'url',
      content: 'https://example.com/playground',
      outputFormat: 'webp',
      size: '256',
    });
    expect(res.statusCode).toBe(200);
    const dataUri = /<img class="generated" src="data:image\/webp;base64,([^"]+)"/.exec(res.body)?.[1];
    expect(dataUri).toBeDefined();
    expect(await decodeQr(Buffer.from(dataUri!, 'base64'), 'webp')).toEqual(
      readByAll('https://example.com/playground'),
    );
    expect(await t.stores.meter.usage(accountId, period)).toEqual({ requests: 1, qrs: 1 });
    expect((await client.get('/portal/qrs')).body).toContain('https://example.com/playground');
  });

  it(
    'reads back the code it just generated ("Read it back", a plain form) with each reader, counting one request ' +
      'and no QR',
    async () => {
      const { client, accountId } = await signedIn();
      const period = periodOf(t.clock.now);
      const content = 'Read me back: Olá, São Paulo';
      const made = await client.submitPlayground({
        type: 'text',
        content,
        outputFormat: 'png',
        size: '256',
        moduleShape: 'dots',
      });
      expect(made.statusCode, made.body).toBe(200);
      const form = /<form[^>]*id="decode-generated"[\s\S]*?<\/form>/.exec(made.body)?.[0];
      expect(form).toBeDefined();
      const image = /name="image" value="([^"]+)"/.exec(form!)![1]!;
      expect(image).toBe(/<img class="generated" src="([^"]+)"/.exec(made.body)![1]);
      const res = await client.postForm('/portal/playground/decode', { _csrf: csrfOf(form!), image });
      expect(res.statusCode, res.body).toBe(200);
      expect(readersOn(res.body)).toEqual({
        zxing: escapeHtml(content),
        zbar: escapeHtml(content),
        jsqr: escapeHtml(content),
      });
      expect(await t.stores.meter.usage(accountId, period)).toEqual({ requests: 2, qrs: 1 });
    },
  );

  it(
    'reads an uploaded photo (the file itself as the body, the CSRF token in a header); without the token it is ' +
      'refused and not counted, an unreadable one counted',
    async () => {
      const { client, accountId } = await signedIn();
      const period = periodOf(t.clock.now);
      const { key } = await t.newCaller('free');
      const content = 'https://example.com/uploaded/photo';
      const png = (await generate(t.app, key, { content, type: 'url', outputFormat: 'png', size: 300 })).rawPayload;
      const photo = await sharp(png).rotate(9, { background: '#d0ccc4' }).blur(0.8).jpeg({ quality: 85 }).toBuffer();
      const token = csrfTokenIn((await client.get('/portal/playground')).body)!;
      const post = (headers: Record<string, string>, body: Buffer) =>
        client.request({
          method: 'POST',
          url: '/portal/playground/decode',
          headers: { 'content-type': 'image/jpeg', origin: 'http://localhost', ...headers },
          payload: body,
        });
      expect((await post({}, photo)).statusCode).toBe(403);
      const res = await post({ 'x-csrf-token': token }, photo);
      expect(res.statusCode, res.body).toBe(200);
      expect(readersOn(res.body)).toEqual({ zxing: content, zbar: content, jsqr: content });
      const blank = await sharp({ create: { width: 80, height: 80, channels: 3, background: '#ffffff' } })
        .jpeg()
        .toBuffer();
      const none = await post({ 'x-csrf-token': token }, blank);
      expect(none.statusCode).toBe(422);
      expect(none.body).toContain('No QR code was found in the image');
      const broken = await post({ 'x-csrf-token': token }, Buffer.from('not a jpeg'));
      expect(broken.statusCode).toBe(400);
      // The read, the empty read and the unreadable image count (the decoder took each); the one refused for its token
      // does not; no QR.
      expect(await t.stores.meter.usage(accountId, period)).toEqual({ requests: 3, qrs: 0 });
    },
  );

  it('marks svg as paid and refuses it on the free plan with the reason', async () => {
    const { client } = await signedIn();
    const page = await client.get('/portal/playground');
    expect(page.body).toMatch(/value="svg"[^>]*disabled/);
    const res = await client.submitPlayground({ type: 'url', content: 'https://example.com', outputFormat: 'svg' });
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain('svg output is not included in the Free plan');
  });

  it('shows content errors next to the form', async () => {
    const { client } = await signedIn();
    const res = await client.submitPlayground({ type: 'url', content: 'not a url', outputFormat: 'png' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('class="banner error"');
    expect(res.body).toContain('>not a url</textarea>');
  });
});

/**
 * The decode panel's table: reader → the text shown for it (HTML-escaped as on the page), or null for "no code found".
 */
function readersOn(html: string): Record<string, string | null> {
  const rows = [
    ...html.matchAll(
      /<tr data-reader="(\w+)"><th scope="row">\w+<\/th><td>(?:<code class="decoded-text">([^<]*)<\/code>|<em>no code found<\/em>)<\/td><\/tr>/g,
    ),
  ];
  return Object.fromEntries(rows.map((row) => [row[1]!, row[2] ?? null]));
}

function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

function csrfOf(html: string): string {
  return /name="_csrf" value="([^"]+)"/.exec(html)![1]!;
}

describe('plans page', () => {
  it('compares free and paid, marks svg as paid, and says plainly that upgrades are an operator action', async () => {
    const { client, accountId } = await signedIn();
    const page = (await client.get('/portal/plans')).body;
    expect(page).toMatch(/id="plan-free"[\s\S]*your plan/);
    expect(page).toMatch(/id="plan-pro"[\s\S]*paid/);
    expect(page).toMatch(/SVG output <span class="badge paid">paid plans<\/span>/);
    expect(page).toContain('an upgrade is an operator action for now');
    expect(page).toContain(`npm run --silent qrm -- accounts plan --account ${accountId} --plan pro`);
  });
});

describe('the portal and the API are separate contexts', () => {
  it('portal pages carry a self-only CSP and no inline script or style', async () => {
    const { client } = await signedIn();
    const res = await client.get('/portal/');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.body).not.toMatch(/<script>|<script(?![^>]*src=)[^>]*>|style="/);
  });

  it('the API answers without portal headers or cookies, and a session cookie is no API credential', async () => {
    const { client } = await signedIn();
    const cookie = `qrm_session=${client.cookies.get('qrm_session')}`;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/QRManager/generate',
      headers: { cookie, 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 'missing_api_key' });
    expect(res.headers['content-security-policy']).toBeUndefined();
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('portal pages need no API key', async () => {
    const res = await new PortalClient(t.app).get('/portal/signin');
    expect(res.statusCode).toBe(200);
  });

  it('the service root leads to the portal', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/portal/');
  });

  it('unknown portal pages are HTML, unknown portal API paths are problem+json', async () => {
    const client = new PortalClient(t.app);
    const page = await client.get('/portal/nowhere');
    expect(page.statusCode).toBe(404);
    expect(page.headers['content-type']).toContain('text/html');
    const api = await client.get('/portal/api/nowhere');
    expect(api.statusCode).toBe(404);
    expect(api.headers['content-type']).toContain('application/problem+json');
  });
});

describe('behind https', () => {
  it('uses a __Host- Secure session cookie and sends HSTS', async () => {
    const secure = await createTestApp({ env: { PUBLIC_URL: 'https://qr.example.com' } });
    try {
      const client = new PortalClient(secure.app);
      const res = await client.get('/portal/signin');
      expect(String(res.headers['set-cookie'])).toMatch(
        /^__Host-qrm_session=[\w-]{43}; Max-Age=600; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
      );
      expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
    } finally {
      await secure.close();
    }
  });
});
