// The Dynamic codes page over HTTP, as a browser without JavaScript uses it: create, edit, pause, download, delete, and
// the scans chart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { scan, USER_AGENTS } from '../helpers/codes.js';
import { decodeQr, readByAll } from '../helpers/decode.js';
import { PortalClient } from '../helpers/portal-client.js';
import { getCode, updateCode } from '../../src/services/dynamic-codes.js';
import { periodOf } from '../../src/domain/period.js';
import { NO_ROUTING } from '../../src/domain/code-routing.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

let seq = 0;
async function signedIn(): Promise<PortalClient> {
  const client = new PortalClient(t.app);
  await client.signInLocally(`codes${++seq}-${Date.now()}@example.com`);
  return client;
}

/** Creates a code through the form and returns its detail page's path and short link. */
async function createThroughForm(client: PortalClient, target: string, name = '') {
  const _csrf = await client.csrfFrom('/portal/codes');
  const created = await client.postForm('/portal/codes', { target, name, _csrf });
  expect(created.statusCode).toBe(303);
  const path = created.headers.location as string;
  expect(path).toMatch(/^\/portal\/codes\/dyn_[A-Za-z0-9_-]+\?notice=created$/);
  const page = await client.get(path);
  const shortUrl = /<code id="short-url">([^<]+)<\/code>/.exec(page.body)![1]!;
  return { path: path.split('?')[0]!, shortUrl, slug: shortUrl.split('/r/')[1]!, page };
}

/** A signed-in owner with a code made through the form (target https://example.com/base), and how to read it back. */
async function ownCodeToEdit(tag: string) {
  const email = `${tag}${++seq}-${Date.now()}@example.com`;
  const client = new PortalClient(t.app);
  await client.signInLocally(email);
  const { path, slug } = await createThroughForm(client, 'https://example.com/base');
  const id = path.split('/').at(-1)!;
  const [account] = await t.stores.accounts.findByEmail(email);
  const deps = { codes: t.stores.codes, clock: () => new Date(), plans: t.plans };
  return { client, path, slug, read: () => getCode(deps, account!.id, id) };
}

describe('Dynamic codes page', () => {
  it('creates a code, lists it, and downloads an image that decodes to its short link', async () => {
    const client = await signedIn();
    const { path, shortUrl, page } = await createThroughForm(client, 'https://example.com/menu', 'Table menu');
    expect(page.body).toContain('The code was created');
    expect(shortUrl).toMatch(/^http:\/\/localhost\/r\/[A-Za-z0-9]{8}$/);
    const list = await client.get('/portal/codes');
    expect(list.body).toContain('Table menu');
    expect(list.body).toContain('1 of 5');
    const image = await client.get(`${path}/image.png`);
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-disposition']).toMatch(/^attachment; filename="qr-[A-Za-z0-9]{8}\.png"$/);
    expect(await decodeQr(image.rawPayload, 'png')).toEqual(readByAll(shortUrl));
    // svg is not in the free plan: no link, and the URL itself is refused.
    expect(page.body).not.toContain('image.svg');
    expect((await client.get(`${path}/image.svg`)).statusCode).toBe(403);
  });

  it('refuses a javascript: target on the form, saying why, and keeps what was typed', async () => {
    const client = await signedIn();
    const _csrf = await client.csrfFrom('/portal/codes');
    const res = await client.postForm('/portal/codes', { target: 'javascript:alert(1)', name: 'bad', _csrf });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('must be an absolute http:// or https:// URL');
    expect(res.body).toContain('value="javascript:alert(1)"');
  });

  it('edits the target, pauses and resumes, and deletes; the redirect follows each step', async () => {
    const client = await signedIn();
    const { path, slug } = await createThroughForm(client, 'https://example.com/old');
    let _csrf = await client.csrfFrom(path);
    expect(
      (await client.postForm(path, { target: 'https://example.com/new', name: 'Renamed', _csrf })).statusCode,
    ).toBe(303);
    expect((await scan(t.app, slug)).headers.location).toBe('https://example.com/new');
    _csrf = await client.csrfFrom(path);
    expect((await client.postForm(`${path}/status`, { status: 'paused', _csrf })).statusCode).toBe(303);
    expect((await scan(t.app, slug)).statusCode).toBe(410);
    expect((await client.get(path)).body).toContain('Resume');
    _csrf = await client.csrfFrom(path);
    await client.postForm(`${path}/status`, { status: 'active', _csrf });
    expect((await scan(t.app, slug)).statusCode).toBe(302);
    _csrf = await client.csrfFrom(path);
    expect((await client.postForm(`${path}/delete`, { _csrf })).headers.location).toBe('/portal/codes?notice=deleted');
    expect((await scan(t.app, slug)).statusCode).toBe(410);
    expect((await client.get(path)).statusCode).toBe(404);
  });

  it("erases a code's scans from its page (confirm form, CSRF): it counts zero, the code still redirects", async () => {
    const client = await signedIn();
    const { path, slug } = await createThroughForm(client, 'https://example.com/erase');
    for (const ip of ['200.147.67.142', '8.8.8.8']) await scan(t.app, slug, { ip, userAgent: USER_AGENTS.ios });
    await t.stores.scans.flush();
    const before = await client.get(path);
    expect(before.body).toContain('2 scans');
    expect(before.body).toContain('data-confirm="Erase all scan data of this code?');
    expect((await client.postForm(`${path}/stats/erase`, {})).statusCode).toBe(403);
    const _csrf = await client.csrfFrom(path);
    const erased = await client.postForm(`${path}/stats/erase`, { _csrf });
    expect([erased.statusCode, erased.headers.location]).toEqual([303, `${path}?notice=erased`]);
    const after = await client.get(`${path}?notice=erased`);
    expect(after.body).toContain('Its scan data was erased.');
    expect(after.body).toContain('0 scans');
    expect((await scan(t.app, slug)).headers.location).toBe('https://example.com/erase');
  });

  it('shows 30 days of scans, devices, countries and split arms as charts, each with a table', async () => {
    const client = await signedIn();
    const { path, slug } = await createThroughForm(client, 'https://example.com/chart');
    const visitors = ['200.147.67.142', '200.147.67.143', '8.8.8.8', '10.2.0.3'];
    for (const [i, ua] of [USER_AGENTS.ios, USER_AGENTS.ios, USER_AGENTS.android, USER_AGENTS.desktop].entries())
      await scan(t.app, slug, { userAgent: ua, ip: visitors[i] });
    await t.stores.scans.flush();
    const page = (await client.get(path)).body;
    const figure = (id: string) =>
      new RegExp(`<figure class="chart" id="chart-${id}"[\\s\\S]*?</figure>`).exec(page)?.[0] ?? '';
    const scans = figure('scans');
    expect(scans).toContain('data-chart="columns"');
    expect(scans).toMatch(
      /<canvas role="img" aria-label="Scans per day from \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}: 4 in total, at most 4 a day.">/,
    );
    expect(scans.match(/<tr data-value=/g)).toHaveLength(30);
    expect(scans).toMatch(/<tr data-value="4"><th scope="row">\d{4}-\d{2}-\d{2}<\/th><td>4<\/td><\/tr>/);
    expect(page).toContain('4 scans · 4 unique a day');
    const devices = figure('devices');
    expect(devices).toContain('<tr data-value="2"><th scope="row">iOS</th><td>2</td></tr>');
    expect(devices).toContain('<tr data-value="1"><th scope="row">Android</th><td>1</td></tr>');
    const countries = figure('countries');
    expect(countries).toContain('data-chart="bars"');
    expect(countries.match(/<tr data-value="\d+"><th scope="row">[^<]*<\/th>/g)).toEqual([
      '<tr data-value="2"><th scope="row">Brazil (BR)</th>',
      '<tr data-value="1"><th scope="row">United States (US)</th>',
      '<tr data-value="1"><th scope="row">Not placed</th>',
    ]);
    // No split sent a scan: no arms chart. The scripts that draw come from this origin.
    expect(figure('arms')).toBe('');
    expect(page).toContain('<script src="/portal/assets/chart.umd.js" defer></script>');
    const chartJs = await client.get('/portal/assets/chart.umd.js');
    expect(chartJs.statusCode).toBe(200);
    expect(chartJs.body).toContain('Chart');
  });

  it("shows a code's campaign: password state, expiry, scan limit, UTM and its rules, never the password", async () => {
    const email = `campaign${++seq}-${Date.now()}@example.com`;
    const client = new PortalClient(t.app);
    await client.signInLocally(email);
    const { path, page: plain } = await createThroughForm(client, 'https://example.com/plain');
    expect(plain.body).toContain('data-field="password">None');
    expect(plain.body).toContain('No redirect rules');
    const [account] = await t.stores.accounts.findByEmail(email);
    await updateCode(
      { codes: t.stores.codes, clock: () => new Date(), plans: t.plans },
      account!.id,
      path.split('/').at(-1)!,
      {
        password: 'sesame-1234',
        expiresAt: '2030-01-01T00:00:00Z',
        maxScans: 500,
        utm: { source: 'qr', medium: 'print', campaign: 'spring' },
        rules: [{ if: { device: ['ios'], language: ['pt-BR'] }, target: 'https://example.com/<ios>' }],
      },
    );
    const page = (await client.get(path)).body;
    expect(page).toContain('data-field="password">Protected');
    expect(page).toContain('data-field="expiresAt">2030-01-01 00:00:00 UTC');
    expect(page).toContain('data-field="maxScans">500 scans');
    expect(page).toContain('utm_source=qr · utm_medium=print · utm_campaign=spring');
    expect(page).toMatch(
      /data-rule="0"><td>1<\/td><td>device ios, language pt-BR<\/td><td>https:\/\/example.com\/&lt;ios&gt;<\/td>/,
    );
    expect(page).not.toContain('sesame-1234');
    expect(page).not.toContain('scrypt$');
  });

  it("shows the code's own image on its page, decoding to its short link, and counts nothing for it", async () => {
    const email = `image${++seq}-${Date.now()}@example.com`;
    const client = new PortalClient(t.app);
    await client.signInLocally(email);
    const { path, shortUrl, page } = await createThroughForm(client, 'https://example.com/picture');
    expect(page.body).toContain(`<img class="code-preview" src="${path}/preview.png"`);
    const [account] = await t.stores.accounts.findByEmail(email);
    const before = await t.stores.meter.usage(account!.id, periodOf(new Date()));
    for (let i = 0; i < 3; i++) {
      const image = await client.get(`${path}/preview.png`);
      expect(image.statusCode).toBe(200);
      expect(image.headers['content-type']).toBe('image/png');
      expect(await decodeQr(image.rawPayload, 'png')).toEqual(readByAll(shortUrl));
    }
    expect(await t.stores.meter.usage(account!.id, periodOf(new Date()))).toEqual(before);
    const other = await signedIn();
    expect((await other.get(`${path}/preview.png`)).statusCode).toBe(404);
  });

  it('edits the campaign through the form (expiry, limit, UTM, password, a rule), and scans follow it', async () => {
    const { client, path, slug, read } = await ownCodeToEdit('edit');
    const saved = await client.postForm(`${path}/campaign`, {
      _csrf: await client.csrfFrom(path),
      expiresAt: '2031-06-30T18:30',
      maxScans: '250',
      expiredTarget: 'https://example.com/over',
      utmSource: 'qr',
      utmMedium: 'poster',
      utmCampaign: 'summer',
      rule0Target: 'https://example.com/iphone',
      rule0Device: 'ios',
      rule0Language: 'pt, de-CH',
      rule0Query: 'src=poster',
    });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(`${path}?notice=campaign#campaign`);
    const routing = (await read()).routing;
    expect(routing).toMatchObject({
      expiresAt: '2031-06-30T18:30:00.000Z',
      maxScans: 250,
      expiredTarget: 'https://example.com/over',
      forwardQuery: false,
      utm: { source: 'qr', medium: 'poster', campaign: 'summer' },
      rules: [
        {
          if: { device: ['ios'], language: ['pt', 'de-CH'], query: { src: 'poster' } },
          target: 'https://example.com/iphone',
        },
      ],
      passwordHash: null,
    });
    const shown = (await client.get(path)).body;
    expect(shown).toContain('value="2031-06-30T18:30"');
    expect(shown).toContain('name="rule0Target" type="url" maxlength="2048" value="https://example.com/iphone"');
    expect(shown).toContain('New redirect rule');
    expect(
      (await scan(t.app, `${slug}?src=poster`, { userAgent: USER_AGENTS.ios, language: 'de-CH' })).headers.location,
    ).toBe('https://example.com/iphone?utm_source=qr&utm_medium=poster&utm_campaign=summer');

    // A password, then clearing everything: empty fields clear, the rule row emptied deletes the rule.
    await client.postForm(`${path}/campaign`, { _csrf: await client.csrfFrom(path), password: 'open-sesame' });
    expect((await scan(t.app, slug)).statusCode).toBe(401);
    expect((await client.get(path)).body).not.toContain('open-sesame');
    await client.postForm(`${path}/campaign`, { _csrf: await client.csrfFrom(path), removePassword: 'on' });
    expect(await read().then((code) => code.routing)).toEqual(NO_ROUTING);
    expect((await scan(t.app, slug)).headers.location).toBe('https://example.com/base');
  });

  it(
    'edits weighted splits through the form (the default ' + 'and a rule), shows them again, and refuses bad weights',
    async () => {
      const { client, path, slug, read } = await ownCodeToEdit('split');
      const saved = await client.postForm(`${path}/campaign`, {
        _csrf: await client.csrfFrom(path),
        split: 'https://example.com/a 60\r\nhttps://example.com/b 40',
        rule0Split: 'https://example.com/ios-a 50\nhttps://example.com/ios-b 50',
        rule0Device: 'ios',
      });
      expect(saved.statusCode).toBe(303);
      const code = await read();
      expect(code.target).toBe('https://example.com/a');
      expect(code.routing).toMatchObject({
        split: [
          { target: 'https://example.com/a', weight: 60 },
          { target: 'https://example.com/b', weight: 40 },
        ],
        rules: [
          {
            if: { device: ['ios'] },
            split: [
              { target: 'https://example.com/ios-a', weight: 50 },
              { target: 'https://example.com/ios-b', weight: 50 },
            ],
          },
        ],
      });
      const shown = (await client.get(path)).body;
      expect(shown).toContain('https://example.com/a 60\nhttps://example.com/b 40</textarea>');
      expect(shown).toContain('data-field="split">https://example.com/a (60%), https://example.com/b (40%)');
      // Scans the default split sent are drawn per arm, each arm named by where it sends them.
      for (let i = 0; i < 6; i++) await scan(t.app, slug, { ip: `10.3.0.${i}`, userAgent: USER_AGENTS.desktop });
      await t.stores.scans.flush();
      const arms =
        /<figure class="chart" id="chart-arms"[\s\S]*?<\/figure>/.exec((await client.get(path)).body)?.[0] ?? '';
      const counts = [
        ...arms.matchAll(/<tr data-value="(\d+)"><th scope="row">default:(\d) → https:\/\/example.com\/([ab])<\/th>/g),
      ];
      expect(counts.map((m) => (m[2] === '0' ? 'a' : 'b'))).toEqual(counts.map((m) => m[3]));
      expect(counts.reduce((sum, m) => sum + Number(m[1]), 0)).toBe(6);
      const refused = await client.postForm(`${path}/campaign`, {
        _csrf: await client.csrfFrom(path),
        split: 'https://example.com/a 60\nhttps://example.com/b 30',
      });
      expect(refused.statusCode).toBe(400);
      expect(refused.body).toContain('<code>split</code>');
    },
  );

  it('refuses a wrong campaign form naming each field, keeps what was typed, and changes nothing', async () => {
    const client = await signedIn();
    const { path } = await createThroughForm(client, 'https://example.com/keep');
    const _csrf = await client.csrfFrom(path);
    const refused = await client.postForm(`${path}/campaign`, {
      _csrf,
      maxScans: '0',
      utmSource: 'only-a-source',
      rule0Target: 'javascript:alert(1)',
      rule0Language: 'en',
      expiresAt: 'next tuesday',
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
    for (const named of ['<code>maxScans</code>', '<code>UTM medium</code>', '<code>expiresAt</code>'])
      expect(refused.body).toContain(named);
    expect(refused.body).toContain('value="only-a-source"');
    expect(refused.body).toContain('value="javascript:alert(1)"');
    // The rule's target is checked by the service as the API checks it.
    const ruleOnly = await client.postForm(`${path}/campaign`, {
      _csrf,
      rule0Target: 'javascript:alert(1)',
      rule0Language: 'en',
    });
    expect(ruleOnly.statusCode).toBe(400);
    expect(ruleOnly.body).toContain('<code>rules[0].target</code>');
    const unknown = await client.postForm(`${path}/campaign`, { _csrf, utmSauce: 'x' });
    expect(unknown.statusCode).toBe(400);
    expect((await client.get(path)).body).toContain('data-field="maxScans">None');
  });

  it("never shows or changes another account's code, and wants the CSRF token", async () => {
    const owner = await signedIn();
    const other = await signedIn();
    const { path, slug } = await createThroughForm(owner, 'https://example.com/private');
    expect((await other.get(path)).statusCode).toBe(404);
    const _csrf = await other.csrfFrom('/portal/codes');
    expect((await other.postForm(path, { target: 'https://evil.example/', _csrf })).statusCode).toBe(404);
    expect((await other.postForm(`${path}/delete`, { _csrf })).statusCode).toBe(404);
    expect((await other.postForm(`${path}/campaign`, { maxScans: '1', _csrf })).statusCode).toBe(404);
    expect((await owner.postForm(`${path}/campaign`, { maxScans: '1' })).statusCode).toBe(403);
    expect((await owner.postForm(path, { target: 'https://example.com/no-token' })).statusCode).toBe(403);
    expect((await scan(t.app, slug)).headers.location).toBe('https://example.com/private');
  });
});
