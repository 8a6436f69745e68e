// Where scans come from and who makes them, in either mode: country rules and counts from the shipped database behind a
// trusted proxy, one unique scanner per address and browser a day, crawlers and link previews answered but counted
// apart.
import { describe, expect, it } from 'vitest';
import { BOT_AGENTS, codesApi, scan, USER_AGENTS } from './codes.js';
import { settledStats, type ScanSuiteContext } from './scan-stats.js';

/** The app (built with TRUST_PROXY=1) and how to bring its counts to the stats. */
export type ScanAnalyticsContext = ScanSuiteContext;

/** A scan that came through our one trusted proxy (the socket), which names the client in X-Forwarded-For. */
const viaProxy = (forwardedFor: string, userAgent: string = USER_AGENTS.android) => ({
  ip: '10.0.0.2',
  userAgent,
  headers: { 'x-forwarded-for': forwardedFor },
});

export function scanAnalyticsSuite(mode: string, context: () => ScanAnalyticsContext): void {
  describe(`scan analytics (${mode})`, () => {
    const statsOf = (key: string, id: string) => settledStats(context(), key, id);

    it(
      'routes scans by country and counts them under BR and US, placed by the shipped database through one ' +
        'trusted hop',
      async () => {
        const { t } = context();
        const { key } = await t.newCaller('pro');
        const created = await codesApi(t.app, key).create({
          target: 'https://example.com/en',
          rules: [{ if: { country: ['BR', 'PT'] }, target: 'https://example.com/pt' }],
        });
        expect(created.statusCode).toBe(201);
        const code = created.json() as { id: string; slug: string };

        const brazil = await scan(t.app, code.slug, viaProxy('200.147.67.142'));
        expect([brazil.statusCode, brazil.headers.location]).toEqual([302, 'https://example.com/pt']);
        const america = await scan(t.app, code.slug, viaProxy('8.8.8.8'));
        expect([america.statusCode, america.headers.location]).toEqual([302, 'https://example.com/en']);
        // Only the hop we trust names the client: an address the client wrote further left is not believed.
        const spoofed = await scan(t.app, code.slug, viaProxy('200.147.67.142, 8.8.8.8'));
        expect(spoofed.headers.location).toBe('https://example.com/en');

        const stats = await statsOf(key, code.id);
        expect(stats.countries).toEqual({ BR: 1, US: 2 });
        expect(stats.totals).toMatchObject({ scans: 3, bots: 0 });
      },
    );

    it('counts five scans with one address and user agent as one unique scanner', async () => {
      const { t } = context();
      const { key } = await t.newCaller('pro');
      const code = await codesApi(t.app, key).created('https://example.com/once');
      for (let i = 0; i < 5; i++)
        expect((await scan(t.app, code.slug, viaProxy('200.147.67.142', USER_AGENTS.ios))).statusCode).toBe(302);
      const stats = await statsOf(key, code.id);
      expect(stats.totals).toEqual({ scans: 5, uniqueScanners: 1, bots: 0 });
    });

    it(
      'redirects Slackbot-LinkExpanding, ' +
        'facebookexternalhit and Googlebot, and counts them ' +
        'as bots, not scans',
      async () => {
        const { t } = context();
        const { key } = await t.newCaller('pro');
        const code = await codesApi(t.app, key).created('https://example.com/preview-me');
        for (const userAgent of Object.values(BOT_AGENTS)) {
          const answer = await scan(t.app, code.slug, viaProxy('8.8.8.8', userAgent));
          expect([answer.statusCode, answer.headers.location]).toEqual([302, 'https://example.com/preview-me']);
        }
        const stats = await statsOf(key, code.id);
        expect(stats.totals).toEqual({ scans: 0, uniqueScanners: 0, bots: 3 });
        expect(stats.countries).toEqual({});
        expect(Object.values(stats.devices).reduce((a, b) => a + b, 0)).toBe(0);
      },
    );

    it('never lets a link preview use up a scan limit: the person who scans next still gets the target', async () => {
      const { t } = context();
      const { key } = await t.newCaller('pro');
      const created = await codesApi(t.app, key).create({ target: 'https://example.com/limited', maxScans: 1 });
      const code = created.json() as { id: string; slug: string };
      for (const userAgent of Object.values(BOT_AGENTS))
        expect((await scan(t.app, code.slug, viaProxy('8.8.8.8', userAgent))).statusCode).toBe(302);
      const person = await scan(t.app, code.slug, viaProxy('8.8.8.8', USER_AGENTS.ios));
      expect([person.statusCode, person.headers.location]).toEqual([302, 'https://example.com/limited']);
      expect((await scan(t.app, code.slug, viaProxy('8.8.4.4', USER_AGENTS.ios))).statusCode).toBe(410);
    });

    it(
      'counts an hourly series when asked (interval=hour): each scan in its UTC hour, the hours adding up to the ' +
        'day',
      async () => {
        const { t } = context();
        const { key } = await t.newCaller('pro');
        const code = await codesApi(t.app, key).created('https://example.com/hourly');
        const morning = new Date(t.clock.now);
        morning.setUTCHours(9, 15, 0, 0);
        const evening = new Date(morning);
        evening.setUTCHours(18, 40, 0, 0);
        const saved = t.clock.now;
        try {
          t.clock.now = morning;
          await scan(t.app, code.slug, viaProxy('200.147.67.142', USER_AGENTS.ios));
          await scan(t.app, code.slug, viaProxy('8.8.8.8', USER_AGENTS.ios));
          t.clock.now = evening;
          await scan(t.app, code.slug, viaProxy('200.147.67.142', USER_AGENTS.ios));
          await context().settle();
        } finally {
          t.clock.now = saved;
        }
        const day = morning.toISOString().slice(0, 10);
        const res = await codesApi(t.app, key).stats(code.id, `?from=${day}&to=${day}&interval=hour`);
        expect(res.statusCode).toBe(200);
        const hourly = res.json() as {
          interval: string;
          series: Array<{ at: string; scans: number; uniqueScanners: number }>;
        };
        expect(hourly.interval).toBe('hour');
        expect(hourly.series).toHaveLength(24);
        expect(hourly.series[9]).toEqual({ at: `${day}T09:00:00.000Z`, scans: 2, uniqueScanners: 2 });
        expect(hourly.series[18]).toEqual({ at: `${day}T18:00:00.000Z`, scans: 1, uniqueScanners: 0 });
        expect(hourly.series.reduce((n, p) => n + p.scans, 0)).toBe(3);
        const tooLong = await codesApi(t.app, key).stats(code.id, '?from=2026-01-01&to=2026-03-01&interval=hour');
        expect(tooLong.statusCode).toBe(400);
      },
    );

    it('refuses a country that is not an upper-case ISO 3166-1 alpha-2 code, naming the field', async () => {
      const { t } = context();
      const { key } = await t.newCaller('pro');
      for (const country of ['br', 'BRA']) {
        const res = await codesApi(t.app, key).create({
          target: 'https://example.com/x',
          rules: [{ if: { country: [country] }, target: 'https://example.com/y' }],
        });
        expect(res.statusCode).toBe(400);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect((res.json() as { errors: Array<{ field: string; detail: string }> }).errors).toEqual([
          { field: 'rules[0].if.country', detail: `"${country}" is not an ISO 3166-1 alpha-2 country code such as BR` },
        ]);
      }
    });
  });
}
