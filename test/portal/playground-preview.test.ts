// The playground's live preview and structured content forms over HTTP: unmetered, limited per session a day, and
// built from the API's own content schemas (a Wi-Fi form makes the WIFI: payload every reader reads).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodOf } from '../../src/domain/period.js';
import { createLocalAccount } from '../../src/services/accounts.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { decodeQr, readByAll } from '../helpers/decode.js';
import { PortalClient } from '../helpers/portal-client.js';

const PREVIEWS_PER_DAY = 3;
const PREVIEW_URL = '/portal/api/playground/preview';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { PORTAL_PREVIEWS_PER_DAY: String(PREVIEWS_PER_DAY) } });
});
afterAll(async () => t?.close());

let seq = 0;
async function signedIn(): Promise<{ client: PortalClient; accountId: string }> {
  const email = `preview${++seq}-${Date.now()}@example.com`;
  const client = new PortalClient(t.app);
  await client.signInLocally(email);
  const [account] = await t.stores.accounts.findByEmail(email);
  return { client, accountId: account!.id };
}

const usage = (accountId: string) => t.stores.meter.usage(accountId, periodOf(new Date()));

describe('playground live preview', () => {
  it('draws the form as it stands, Wi-Fi fields included, decoding to the payload, and counts nothing', async () => {
    const { client, accountId } = await signedIn();
    const _csrf = await client.csrfFrom('/portal/playground');
    const before = await usage(accountId);
    const preview = await client.postForm(PREVIEW_URL, {
      _csrf,
      type: 'wifi',
      content: '',
      'wifi.ssid': 'Café; "Guest"',
      'wifi.password': 'pa:ss,word',
      'wifi.encryption': 'WPA',
      'wifi.hidden': 'on',
      darkColor: '#1d3557',
      lightColor: '#ffffff',
    });
    expect(preview.statusCode).toBe(200);
    expect(preview.headers['content-type']).toBe('image/png');
    expect(await decodeQr(preview.rawPayload, 'png')).toEqual(
      readByAll('WIFI:T:WPA;S:Café\\; \\"Guest\\";P:pa\\:ss\\,word;H:true;;'),
    );
    expect(await usage(accountId)).toEqual(before);
  });

  it('says what is wrong with the form as problem+json, naming the field', async () => {
    const { client } = await signedIn();
    const _csrf = await client.csrfFrom('/portal/playground');
    const refused = await client.postForm(PREVIEW_URL, {
      _csrf,
      type: 'wifi',
      content: '',
      'wifi.ssid': 'Home',
      'wifi.encryption': 'WPA',
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.json()).toMatchObject({
      code: 'invalid_content',
      detail: expect.stringContaining('content.password'),
    });
    expect((await client.postForm(PREVIEW_URL, { type: 'text', content: 'no token' })).statusCode).toBe(403);
    expect(
      (await new PortalClient(t.app).postForm(PREVIEW_URL, { type: 'text', content: 'signed out' })).statusCode,
    ).toBe(401);
  });

  it(
    'stops at the day’s previews of a session with 429 ' +
      'preview_limit_reached, and another session has its ' +
      'own',
    async () => {
      const { client } = await signedIn();
      const _csrf = await client.csrfFrom('/portal/playground');
      const body = { _csrf, type: 'text', content: 'Hello' };
      for (let i = 0; i < PREVIEWS_PER_DAY; i++)
        expect((await client.postForm(PREVIEW_URL, body)).statusCode).toBe(200);
      const refused = await client.postForm(PREVIEW_URL, body);
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toMatchObject({ code: 'preview_limit_reached', limit: PREVIEWS_PER_DAY });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      const other = await signedIn();
      const otherToken = await other.client.csrfFrom('/portal/playground');
      expect((await other.client.postForm(PREVIEW_URL, { ...body, _csrf: otherToken })).statusCode).toBe(200);
    },
  );
});

describe('playground content forms', () => {
  it(
    'offers a form per structured type, from the API ' + 'schemas, and generates a Wi-Fi code from its fields',
    async () => {
      const { client, accountId } = await signedIn();
      const page = (await client.get('/portal/playground')).body;
      for (const type of ['wifi', 'vcard', 'event', 'email', 'sms', 'whatsapp', 'pix', 'epc', 'geo'])
        expect(page).toContain(`data-content-type="${type}"`);
      expect(page).toContain('name="wifi.ssid" type="text" maxlength="32"');
      expect(page).toMatch(/<select id="field-wifi-encryption" name="wifi.encryption">\s*<option value="WPA"/);
      expect(page).toContain('name="geo.latitude" type="number" step="any" min="-90" max="90"');
      expect(page).toContain('id="darkColor" name="darkColor" type="color" value="#000000"');
      const made = await client.submitPlayground({
        type: 'wifi',
        content: '',
        'wifi.ssid': 'Office',
        'wifi.password': 'correct horse',
        'wifi.encryption': 'WPA',
        outputFormat: 'png',
        size: '256',
        darkColor: '#000000',
        lightColor: '#ffffff',
        finderColor: '#000000',
      });
      expect(made.statusCode).toBe(200);
      const dataUri = /<img class="generated" src="data:image\/png;base64,([^"]+)"/.exec(made.body)![1]!;
      expect(await decodeQr(Buffer.from(dataUri, 'base64'), 'png')).toEqual(
        readByAll('WIFI:T:WPA;S:Office;P:correct horse;;'),
      );
      expect((await usage(accountId)).requests).toBe(1);
      // The fields keep what was typed.
      expect(made.body).toContain('name="wifi.ssid" type="text" maxlength="32" value="Office"');
    },
  );
});

describe('playground save as design', () => {
  it('keeps the form’s look under a name, as POST /designs does, and generates nothing', async () => {
    const email = `designer${++seq}-${Date.now()}@example.com`;
    const account = await createLocalAccount({ ...t.stores, clock: () => new Date() }, email, 'business');
    const client = new PortalClient(t.app);
    await client.signInLocally(email);
    const saved = await client.submitPlayground(
      {
        designName: 'Navy dots',
        type: 'url',
        content: 'https://example.com',
        outputFormat: 'png',
        size: '512',
        darkColor: '#1d3557',
        lightColor: '#ffffff',
        moduleShape: 'dots',
        finderColor: '#1d3557',
      },
      '/portal/playground/design',
    );
    expect(saved.statusCode).toBe(201);
    const id = /"design": "(des_[^"]+)"/.exec(saved.body.replaceAll('&quot;', '"'))?.[1];
    expect(id).toBeDefined();
    const stored = await t.stores.designs.get(account.id, id!);
    expect(stored).toMatchObject({
      name: 'Navy dots',
      options: { size: 512, darkColor: '#1d3557', lightColor: '#ffffff', moduleShape: 'dots' },
    });
    expect(stored!.options.finderColor).toBeUndefined();
    expect((await usage(account.id)).requests).toBe(0);
  });

  it('refuses a design without a name, saying so, and keeps the form', async () => {
    const { client } = await signedIn();
    const refused = await client.submitPlayground(
      {
        designName: ' ',
        type: 'text',
        content: 'kept text',
        outputFormat: 'png',
      },
      '/portal/playground/design',
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('name: 1 to 64 printable characters');
    expect(refused.body).toContain('kept text</textarea>');
  });
});
