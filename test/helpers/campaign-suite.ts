// The campaign behaviour of dynamic codes (rules, expiry, scan limits, forwarded query, UTM, passwords), run in the
// embedded default and in Redis mode.
import { describe, expect, it } from 'vitest';
import type { TestApp } from './app.js';
import { PASSWORD_GUESSES } from '../../src/http/redirect/scan-answer.js';
import { codesApi, scan, USER_AGENTS, type CodeJson } from './codes.js';
import { rollupScans } from '../../src/services/rollup-scans.js';

interface CampaignCode extends CodeJson {
  rules: unknown[];
  expiresAt: string | null;
  maxScans: number | null;
  expiredTarget: string | null;
  forwardQuery: boolean;
  utm: Record<string, string> | null;
  passwordProtected: boolean;
}

/** Posts the password form as a browser without script would: urlencoded, to the address the form was shown at. */
export function submitPassword(t: TestApp, path: string, password: string, ip = '127.0.0.1') {
  return t.app.inject({
    method: 'POST',
    url: path,
    remoteAddress: ip,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': USER_AGENTS.other },
    payload: new URLSearchParams({ password }).toString(),
  });
}

export function campaignSuite(mode: string, t: () => TestApp, settle: () => Promise<void> = async () => {}): void {
  const api = async () => codesApi(t().app, (await t().newCaller('pro')).key);
  const created = async (body: Record<string, unknown>): Promise<CampaignCode> => {
    const res = await (await api()).create(body);
    if (res.statusCode !== 201) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
    await settle();
    return res.json() as CampaignCode;
  };

  describe(`campaign rules (${mode})`, () => {
    it('route an iPhone, an Android phone with pt-BR and a desktop to three targets, first match winning', async () => {
      const code = await created({
        target: 'https://example.com/desktop',
        rules: [
          { if: { device: ['ios'] }, target: 'https://example.com/ios' },
          { if: { device: ['android'], language: ['pt-BR'] }, target: 'https://example.com/android-pt' },
          { if: { device: ['android', 'ios'] }, target: 'https://example.com/phone' },
        ],
      });
      expect(code.rules).toHaveLength(3);
      const go = async (visitor: Parameters<typeof scan>[2]) =>
        (await scan(t().app, code.slug, visitor)).headers.location;
      expect(await go({ userAgent: USER_AGENTS.ios, language: 'pt-BR' })).toBe('https://example.com/ios');
      expect(await go({ userAgent: USER_AGENTS.android, language: 'pt-BR,pt;q=0.9,en;q=0.8' })).toBe(
        'https://example.com/android-pt',
      );
      expect(await go({ userAgent: USER_AGENTS.desktop, language: 'pt-BR' })).toBe('https://example.com/desktop');
      // q-values: English is preferred here, although pt-BR is named first.
      expect(await go({ userAgent: USER_AGENTS.android, language: 'pt-BR;q=0.5, en;q=0.9' })).toBe(
        'https://example.com/phone',
      );
      expect(await go({ userAgent: USER_AGENTS.android, language: 'pt' })).toBe('https://example.com/phone');
    });

    it('match a primary language tag against regional variants, time windows and query parameters', async () => {
      t().clock.now = new Date('2026-06-15T12:00:00Z');
      const code = await created({
        target: 'https://example.com/default',
        rules: [
          { if: { query: { src: 'flyer' } }, target: 'https://example.com/flyer' },
          { if: { language: ['fr'], before: '2026-06-15T13:00:00+01:00' }, target: 'https://example.com/fr-early' },
          { if: { after: '2026-07-01T00:00:00Z' }, target: 'https://example.com/july' },
        ],
      });
      const go = async (path: string, language?: string) =>
        (await scan(t().app, path, language ? { language } : {})).headers.location;
      expect(await go(`${code.slug}?src=flyer`)).toBe('https://example.com/flyer');
      expect(await go(`${code.slug}?src=poster`)).toBe('https://example.com/default');
      // 13:00+01:00 is 12:00Z: "before" it no longer holds at 12:00Z.
      expect(await go(code.slug, 'fr-CA')).toBe('https://example.com/default');
      t().clock.now = new Date('2026-06-15T11:59:59Z');
      expect(await go(code.slug, 'fr-CA')).toBe('https://example.com/fr-early');
      t().clock.now = new Date('2026-07-01T00:00:00Z');
      expect(await go(code.slug)).toBe('https://example.com/july');
      t().clock.now = new Date();
    });

    it(
      'append UTM tags and the forwarded query to every target without repeating a parameter, the fragment kept ' +
        'last',
      async () => {
        const code = await created({
          target: 'https://example.com/shop?utm_source=own&a=1#top',
          forwardQuery: true,
          utm: { source: 'qr', medium: 'print', campaign: 'spring sale', content: 'a&b' },
          rules: [{ if: { device: ['ios'] }, target: 'https://example.com/app' }],
        });
        expect(code.utm).toEqual({ source: 'qr', medium: 'print', campaign: 'spring sale', content: 'a&b' });
        const plain = await scan(t().app, `${code.slug}?a=2&table=7`);
        expect(plain.headers.location).toBe(
          'https://example.com/shop?utm_source=own&a=1&table=7&utm_medium=print&utm_campaign=spring%20sale&utm_content=a%26b#top',
        );
        const ios = await scan(t().app, code.slug, { userAgent: USER_AGENTS.ios });
        expect(ios.headers.location).toBe(
          'https://example.com/app?utm_source=qr&utm_medium=print&utm_campaign=spring%20sale&utm_content=a%26b',
        );
      },
    );

    it('answer a changed UTM tag or target from the very next scan, however often the code was scanned', async () => {
      const caller = await api();
      const utm = (source: string) => ({ source, medium: 'print', campaign: 'c' });
      const code = (await caller.create({ target: 'https://example.com/a', utm: utm('qr') })).json() as CampaignCode;
      await settle();
      const location = async () => (await scan(t().app, code.slug)).headers.location;
      const tags = (source: string) => `utm_source=${source}&utm_medium=print&utm_campaign=c`;
      for (let i = 0; i < 3; i++) expect(await location()).toBe(`https://example.com/a?${tags('qr')}`);
      expect((await caller.patch(code.id, { utm: utm('flyer') })).statusCode).toBe(200);
      await settle();
      expect(await location()).toBe(`https://example.com/a?${tags('flyer')}`);
      expect((await caller.patch(code.id, { target: 'https://example.com/b' })).statusCode).toBe(200);
      await settle();
      expect(await location()).toBe(`https://example.com/b?${tags('flyer')}`);
    });

    it('send scans past expiresAt or maxScans to expiredTarget, or answer the 410 page without one', async () => {
      t().clock.now = new Date('2026-03-01T00:00:00Z');
      const dated = await created({
        target: 'https://example.com/live',
        expiresAt: '2026-03-02T00:00:00Z',
        expiredTarget: 'https://example.com/over',
      });
      expect((await scan(t().app, dated.slug)).headers.location).toBe('https://example.com/live');
      t().clock.now = new Date('2026-03-02T00:00:00Z');
      expect((await scan(t().app, dated.slug)).headers.location).toBe('https://example.com/over');
      t().clock.now = new Date();

      const counted = await created({
        target: 'https://example.com/live',
        maxScans: 3,
        expiredTarget: 'https://example.com/sold-out',
      });
      const answers = await Promise.all(Array.from({ length: 6 }, () => scan(t().app, counted.slug)));
      const locations = answers.map((r) => r.headers.location).sort();
      expect(locations).toEqual(
        [...Array(3).fill('https://example.com/live'), ...Array(3).fill('https://example.com/sold-out')].sort(),
      );

      const bare = await created({ target: 'https://example.com/live', maxScans: 1 });
      expect((await scan(t().app, bare.slug)).statusCode).toBe(302);
      const gone = await scan(t().app, bare.slug);
      expect(gone.statusCode).toBe(410);
      expect(gone.headers['content-type']).toMatch(/^text\/html/);
      expect(gone.body).not.toContain('example.com');
    });

    it('are editable: PATCH replaces the fields named, null clears them, GET returns them', async () => {
      const caller = await api();
      const res = await caller.create({
        target: 'https://example.com/',
        maxScans: 1,
        utm: { source: 'a', medium: 'b', campaign: 'c' },
      });
      const code = res.json() as CampaignCode;
      expect(code).toMatchObject({
        rules: [],
        expiresAt: null,
        maxScans: 1,
        expiredTarget: null,
        forwardQuery: false,
        passwordProtected: false,
      });
      const patched = await caller.patch(code.id, {
        rules: [{ if: { after: '2026-01-01T02:00:00+02:00' }, target: 'https://example.com/new-year' }],
        expiresAt: '2027-01-01T00:00:00+01:00',
        maxScans: null,
        forwardQuery: true,
      });
      expect(patched.statusCode).toBe(200);
      expect(patched.json()).toMatchObject({
        rules: [{ if: { after: '2026-01-01T00:00:00.000Z' }, target: 'https://example.com/new-year' }],
        expiresAt: '2026-12-31T23:00:00.000Z',
        maxScans: null,
        forwardQuery: true,
        utm: { source: 'a', medium: 'b', campaign: 'c' },
      });
      await settle();
      expect((await caller.get(code.id)).json()).toMatchObject({ maxScans: null, forwardQuery: true });
      expect((await caller.patch(code.id, { utm: null, rules: [] })).json()).toMatchObject({ utm: null, rules: [] });
    });

    it('refuse bad rules, limits and targets with 400 naming the field, storing nothing', async () => {
      const caller = await api();
      const bad: Array<[Record<string, unknown>, string]> = [
        [{ rules: [{ if: { device: ['ios'] }, target: 'javascript:alert(1)' }] }, 'rules[0].target'],
        [{ rules: [{ if: {}, target: 'https://example.com/' }] }, 'rules[0].if'],
        [
          { rules: Array.from({ length: 21 }, () => ({ if: { device: ['ios'] }, target: 'https://example.com/' })) },
          'rules',
        ],
        [{ rules: [{ if: { device: ['fridge'] }, target: 'https://example.com/' }] }, 'rules.0.if.device.0'],
        [{ rules: [{ if: { language: ['pt BR'] }, target: 'https://example.com/' }] }, 'rules[0].if.language'],
        [
          {
            rules: [
              { if: { after: '2026-02-01T00:00:00Z', before: '2026-01-01T00:00:00Z' }, target: 'https://example.com/' },
            ],
          },
          'rules[0].if.before',
        ],
        [{ rules: [{ if: { after: 'tomorrow' }, target: 'https://example.com/' }] }, 'rules.0.if.after'],
        [{ expiresAt: '2026-13-01T00:00:00Z' }, 'expiresAt'],
        [{ maxScans: 0 }, 'maxScans'],
        [{ expiredTarget: 'ftp://example.com/' }, 'expiredTarget'],
        [{ utm: { source: 'qr', medium: 'print' } }, 'utm.campaign'],
        [{ password: 'abc' }, 'password'],
        [{ password: 'x'.repeat(129) }, 'password'],
      ];
      for (const [fields, field] of bad) {
        const res = await caller.create({ target: 'https://example.com/', ...fields });
        expect(res.statusCode, JSON.stringify(fields)).toBe(400);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect((res.json() as { errors: Array<{ field: string }> }).errors.map((e) => e.field)).toContain(field);
      }
      expect(((await caller.list()).json() as { items: unknown[] }).items).toEqual([]);
    });
  });

  describe(`weighted split (${mode})`, () => {
    /** Every scan answered so far, counted in the stats (Redis mode: rolled up into the ledger as the worker would). */
    const counted = async () => {
      await t().stores.scans.flush();
      await rollupScans(t().stores);
    };
    const A = 'https://example.com/a';
    const B = 'https://example.com/b';
    const crowd = Array.from({ length: 200 }, (_, i) => `10.${Math.floor(i / 250)}.${(i * 7) % 250}.${i % 250}`);

    it(
      'send a crowd of addresses to both arms of a 50/50 split, each address to the same arm every time, counted ' +
        'per arm',
      async () => {
        const caller = await api();
        const res = await caller.create({
          split: [
            { target: A, weight: 50 },
            { target: B, weight: 50 },
          ],
        });
        expect(res.statusCode, res.body).toBe(201);
        const code = res.json() as CampaignCode & { split: unknown };
        expect(code).toMatchObject({
          target: A,
          split: [
            { target: A, weight: 50 },
            { target: B, weight: 50 },
          ],
        });
        const first = new Map<string, string | undefined>();
        for (const ip of crowd)
          first.set(ip, (await scan(t().app, code.slug, { ip, userAgent: USER_AGENTS.android })).headers.location);
        const toA = [...first.values()].filter((l) => l === A).length;
        const toB = [...first.values()].filter((l) => l === B).length;
        expect(toA + toB).toBe(crowd.length);
        // Binomial(200, 0.5) has a standard deviation of about 7: 60..140 is more than five of them either side.
        expect(toA).toBeGreaterThanOrEqual(60);
        expect(toB).toBeGreaterThanOrEqual(60);
        for (const ip of crowd) {
          expect((await scan(t().app, code.slug, { ip, userAgent: USER_AGENTS.android })).headers.location, ip).toBe(
            first.get(ip),
          );
        }
        await counted();
        const stats = (await caller.stats(code.id)).json() as {
          totals: { scans: number };
          arms: Record<string, number>;
        };
        expect(stats.totals.scans).toBe(2 * crowd.length);
        expect(stats.arms).toEqual({ 'default:0': 2 * toA, 'default:1': 2 * toB });
      },
    );

    it('split the scans a rule takes by its own weights, the others going to the target', async () => {
      const caller = await api();
      const code = (
        await caller.create({
          target: 'https://example.com/desktop',
          rules: [
            {
              if: { device: ['ios'] },
              split: [
                { target: A, weight: 80 },
                { target: B, weight: 20 },
              ],
            },
          ],
        })
      ).json() as CampaignCode;
      let toA = 0;
      for (const ip of crowd)
        if ((await scan(t().app, code.slug, { ip, userAgent: USER_AGENTS.ios })).headers.location === A) toA++;
      // Binomial(200, 0.8): mean 160, standard deviation about 5.7.
      expect(toA).toBeGreaterThanOrEqual(130);
      expect(toA).toBeLessThanOrEqual(190);
      expect((await scan(t().app, code.slug, { userAgent: USER_AGENTS.desktop })).headers.location).toBe(
        'https://example.com/desktop',
      );
      await counted();
      const stats = (await caller.stats(code.id)).json() as { arms: Record<string, number> };
      expect(stats.arms).toEqual({ 'rules[0]:0': toA, 'rules[0]:1': crowd.length - toA });
    });

    it('end when PATCH sets a target alone, and refuse bad splits with 400 naming the field', async () => {
      const caller = await api();
      const code = (
        await caller.create({
          split: [
            { target: A, weight: 30 },
            { target: B, weight: 70 },
          ],
        })
      ).json() as CampaignCode;
      const patched = (await caller.patch(code.id, { target: 'https://example.com/c' })).json() as CampaignCode & {
        split: unknown;
      };
      expect(patched).toMatchObject({ target: 'https://example.com/c', split: null });
      expect((await scan(t().app, code.slug)).headers.location).toBe('https://example.com/c');
      const bad: Array<[Record<string, unknown>, string]> = [
        [
          {
            split: [
              { target: A, weight: 50 },
              { target: B, weight: 40 },
            ],
          },
          'split',
        ],
        [{ split: [{ target: A, weight: 100 }] }, 'split'],
        [
          {
            split: [
              { target: A, weight: 50.5 },
              { target: B, weight: 49.5 },
            ],
          },
          'split.0.weight',
        ],
        [
          {
            split: [
              { target: 'javascript:alert(1)', weight: 50 },
              { target: B, weight: 50 },
            ],
          },
          'split[0].target',
        ],
        [
          {
            target: B,
            split: [
              { target: A, weight: 50 },
              { target: B, weight: 50 },
            ],
          },
          'target',
        ],
        [
          {
            target: A,
            rules: [
              {
                if: { device: ['ios'] },
                target: A,
                split: [
                  { target: A, weight: 50 },
                  { target: B, weight: 50 },
                ],
              },
            ],
          },
          'rules[0].target',
        ],
        [{ target: A, rules: [{ if: { device: ['ios'] } }] }, 'rules[0].target'],
        [{}, 'target'],
      ];
      for (const [fields, field] of bad) {
        const res = await caller.create(fields);
        expect(res.statusCode, JSON.stringify(fields)).toBe(400);
        expect(
          (res.json() as { errors: Array<{ field: string }> }).errors.map((e) => e.field),
          JSON.stringify(fields),
        ).toContain(field);
      }
    });
  });

  describe(`password-protected codes (${mode})`, () => {
    it(
      'show a 401 form that works without script and never ' + 'reveals the target; the right password gets the 302',
      async () => {
        const code = await created({
          target: 'https://secret.example.org/vip?x=1',
          name: 'VIP lounge',
          password: 'open sesame',
        });
        expect(code.passwordProtected).toBe(true);
        expect(JSON.stringify(code)).not.toContain('open sesame');
        const form = await scan(t().app, `${code.slug}?table=4`);
        expect(form.statusCode).toBe(401);
        expect(form.headers['content-type']).toMatch(/^text\/html/);
        expect(form.headers.location).toBeUndefined();
        expect(form.headers['cache-control']).toBe('no-store');
        expect(form.body).toMatch(/<form method="post">/);
        expect(form.body).toContain('name="password"');
        expect(form.body).not.toMatch(/<script/i);
        for (const secret of ['secret.example.org', 'vip', 'VIP lounge'])
          expect(form.body + JSON.stringify(form.headers)).not.toContain(secret);

        const wrong = await submitPassword(t(), `/r/${code.slug}?table=4`, 'open sesame?', '198.51.100.7');
        expect(wrong.statusCode).toBe(401);
        expect(wrong.body).toContain('not right');
        expect(wrong.body + JSON.stringify(wrong.headers)).not.toContain('secret.example.org');
        const right = await submitPassword(t(), `/r/${code.slug}?table=4`, 'open sesame', '198.51.100.7');
        expect(right.statusCode).toBe(302);
        expect(right.headers.location).toBe('https://secret.example.org/vip?x=1');
      },
    );

    it('limit wrong guesses per code and address with a 429 page, other addresses and codes unaffected', async () => {
      const code = await created({ target: 'https://secret.example.org/', password: 'correct horse' });
      const other = await created({ target: 'https://secret.example.org/2', password: 'correct horse' });
      const path = `/r/${code.slug}`;
      const guesses = await Promise.all(
        Array.from({ length: 8 }, (_, i) => submitPassword(t(), path, `guess ${i}`, '203.0.113.9')),
      );
      expect(guesses.filter((r) => r.statusCode === 401)).toHaveLength(5);
      const refused = guesses.filter((r) => r.statusCode === 429);
      expect(refused).toHaveLength(3);
      expect(Number(refused[0]!.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused[0]!.headers['content-type']).toMatch(/^text\/html/);
      // Even the right password waits out the window from that address...
      expect((await submitPassword(t(), path, 'correct horse', '203.0.113.9')).statusCode).toBe(429);
      // ...while another address, and the same address on another code, get through.
      expect((await submitPassword(t(), path, 'correct horse', '203.0.113.10')).statusCode).toBe(302);
      expect((await submitPassword(t(), `/r/${other.slug}`, 'correct horse', '203.0.113.9')).statusCode).toBe(302);
    });

    it(
      'never counts a right password as a guess: a burst ' + 'of right answers leaves only the wrong ones counted',
      async () => {
        const code = await created({ target: 'https://secret.example.org/burst', password: 'correct horse' });
        const path = `/r/${code.slug}`;
        const ip = '203.0.113.20';
        expect((await submitPassword(t(), path, 'wrong 1', ip)).statusCode).toBe(401);
        const burst = await Promise.all(
          Array.from({ length: 12 }, () => submitPassword(t(), path, 'correct horse', ip)),
        );
        expect(burst.filter((r) => r.statusCode === 302).length).toBeGreaterThanOrEqual(4);
        for (let i = 0; i < 10; i++)
          expect((await submitPassword(t(), path, 'correct horse', ip)).statusCode).toBe(302);
        // One wrong guess counted so far: four more are still answered as wrong, and only then is the address refused.
        for (let i = 2; i <= 5; i++) expect((await submitPassword(t(), path, `wrong ${i}`, ip)).statusCode).toBe(401);
        expect((await submitPassword(t(), path, 'correct horse', ip)).statusCode).toBe(429);
      },
    );

    it(
      `refuse every address once a code has had ${PASSWORD_GUESSES.perCodeMax} wrong passwords from all of them, ` +
        `with a page of its own`,
      async () => {
        const code = await created({ target: 'https://secret.example.org/ceiling', password: 'correct horse' });
        const other = await created({ target: 'https://secret.example.org/ceiling-2', password: 'correct horse' });
        const path = `/r/${code.slug}`;
        const addresses = PASSWORD_GUESSES.perCodeMax / PASSWORD_GUESSES.max;
        for (let a = 0; a < addresses; a++) {
          const ip = `198.18.${a}.1`;
          const wrong = await Promise.all(
            Array.from({ length: PASSWORD_GUESSES.max }, (_, i) => submitPassword(t(), path, `guess ${a}-${i}`, ip)),
          );
          expect(wrong.map((r) => r.statusCode)).toEqual(Array.from({ length: PASSWORD_GUESSES.max }, () => 401));
        }
        // A new address, with the right password: the code takes no answers until the window ends.
        const refused = await submitPassword(t(), path, 'correct horse', '198.18.200.1');
        expect(refused.statusCode).toBe(429);
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
        expect(refused.body).toContain('from many networks');
        expect((await submitPassword(t(), `/r/${other.slug}`, 'correct horse', '198.18.200.1')).statusCode).toBe(302);
      },
    );

    it('can be removed by PATCH password: null, after which scans redirect at once', async () => {
      const caller = await api();
      const code = (
        await caller.create({ target: 'https://example.com/open', password: 'letmein' })
      ).json() as CampaignCode;
      expect((await caller.patch(code.id, { password: null })).json()).toMatchObject({ passwordProtected: false });
      await settle();
      expect((await scan(t().app, code.slug)).headers.location).toBe('https://example.com/open');
    });
  });
}
