// GET /stats: an account's scans across its codes per day or hour, its top codes, devices and countries, and nothing of
// other accounts'.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { BOT_AGENTS, codesApi, scan, USER_AGENTS } from '../helpers/codes.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const statsOf = (key: string, query = '') =>
  t.app.inject({ method: 'GET', url: `/api/v1/QRManager/stats${query}`, headers: { 'x-api-key': key } });

interface AccountStatsJson {
  from: string;
  to: string;
  interval: string;
  totals: { scans: number; uniqueScanners: number; bots: number; codesScanned: number };
  series: Array<{ at: string; scans: number; uniqueScanners: number }>;
  topCodes: Array<{ codeId: string; slug: string; name: string | null; scans: number }>;
  devices: Record<string, number>;
  countries: Record<string, number>;
}

describe('account statistics', () => {
  it("sum every code's scans per day, rank the codes, split the devices, and leave other accounts out", async () => {
    const { key } = await t.newCaller('pro');
    const api = codesApi(t.app, key);
    const [menu, poster, quiet] = [
      await api.created('https://example.com/menu', 'Menu'),
      await api.created('https://example.com/poster'),
      await api.created('https://example.com/quiet'),
    ];
    const stranger = await codesApi(t.app, (await t.newCaller('pro')).key).created('https://example.com/theirs');
    t.clock.now = new Date('2026-03-01T10:00:00Z');
    for (let i = 0; i < 3; i++) await scan(t.app, menu.slug, { ip: `10.1.0.${i}`, userAgent: USER_AGENTS.ios });
    await scan(t.app, poster.slug, { ip: '10.1.0.9', userAgent: USER_AGENTS.android });
    t.clock.now = new Date('2026-03-02T23:59:00Z');
    for (let i = 0; i < 4; i++) await scan(t.app, poster.slug, { ip: '10.1.0.9', userAgent: USER_AGENTS.desktop });
    for (let i = 0; i < 5; i++) await scan(t.app, stranger.slug, { ip: '10.1.0.1', userAgent: USER_AGENTS.ios });
    await t.stores.scans.flush();

    const res = await statsOf(key, '?from=2026-02-28&to=2026-03-03&interval=day');
    expect(res.statusCode, res.body).toBe(200);
    const stats = res.json() as AccountStatsJson;
    expect(stats).toMatchObject({ from: '2026-02-28', to: '2026-03-03', interval: 'day' });
    expect(stats.totals).toEqual({ scans: 8, uniqueScanners: 5, bots: 0, codesScanned: 2 });
    expect(stats.series).toEqual([
      { at: '2026-02-28T00:00:00.000Z', scans: 0, uniqueScanners: 0 },
      { at: '2026-03-01T00:00:00.000Z', scans: 4, uniqueScanners: 4 },
      { at: '2026-03-02T00:00:00.000Z', scans: 4, uniqueScanners: 1 },
      { at: '2026-03-03T00:00:00.000Z', scans: 0, uniqueScanners: 0 },
    ]);
    expect(stats.topCodes).toEqual([
      { codeId: poster.id, slug: poster.slug, name: null, scans: 5 },
      { codeId: menu.id, slug: menu.slug, name: 'Menu', scans: 3 },
    ]);
    expect(stats.topCodes.map((c) => c.codeId)).not.toContain(quiet.id);
    expect(stats.devices).toEqual({ ios: 3, android: 1, desktop: 4, other: 0 });

    // The default range is the last 30 days up to today (UTC).
    const recent = (await statsOf(key)).json() as AccountStatsJson;
    expect(recent.series).toHaveLength(30);
    expect(recent.to).toBe('2026-03-02');
    expect(recent.totals.scans).toBe(8);
    t.clock.now = new Date();
  });

  it("count each hour of the range and each country over the account's codes, bots apart", async () => {
    const { key } = await t.newCaller('pro');
    const api = codesApi(t.app, key);
    const menu = await api.created('https://example.com/menu');
    const poster = await api.created('https://example.com/poster');
    const stranger = await codesApi(t.app, (await t.newCaller('pro')).key).created('https://example.com/theirs');
    t.clock.now = new Date('2026-03-01T09:15:00Z');
    await scan(t.app, menu.slug, { ip: '200.147.67.142', userAgent: USER_AGENTS.ios });
    await scan(t.app, poster.slug, { ip: '200.147.67.142', userAgent: USER_AGENTS.ios });
    await scan(t.app, menu.slug, { ip: '200.147.67.142', userAgent: BOT_AGENTS.slack });
    t.clock.now = new Date('2026-03-02T17:40:00Z');
    await scan(t.app, poster.slug, { ip: '8.8.8.8', userAgent: USER_AGENTS.android });
    await scan(t.app, poster.slug, { ip: '8.8.8.8', userAgent: USER_AGENTS.android });
    await scan(t.app, menu.slug, { ip: '10.2.0.1', userAgent: USER_AGENTS.desktop });
    await scan(t.app, stranger.slug, { ip: '8.8.8.8', userAgent: USER_AGENTS.ios });
    await t.stores.scans.flush();

    const res = await statsOf(key, '?from=2026-03-01&to=2026-03-02&interval=hour');
    expect(res.statusCode, res.body).toBe(200);
    const stats = res.json() as AccountStatsJson;
    expect(stats.interval).toBe('hour');
    expect(stats.series).toHaveLength(48);
    expect(stats.series[0]!.at).toBe('2026-03-01T00:00:00.000Z');
    expect(stats.series.filter((p) => p.scans > 0)).toEqual([
      { at: '2026-03-01T09:00:00.000Z', scans: 2, uniqueScanners: 2 },
      { at: '2026-03-02T17:00:00.000Z', scans: 3, uniqueScanners: 2 },
    ]);
    expect(stats.totals).toEqual({ scans: 5, uniqueScanners: 4, bots: 1, codesScanned: 2 });
    expect(stats.countries).toEqual({ BR: 2, US: 2, other: 1 });
    const daily = (await statsOf(key, '?from=2026-03-01&to=2026-03-02')).json() as AccountStatsJson;
    expect(daily.series.map((p) => p.scans)).toEqual([2, 3]);
    expect(daily.countries).toEqual(stats.countries);
    t.clock.now = new Date();
  });

  it(
    'refuse a bad range, an unknown interval or ' + 'parameter with 400 naming it, and a missing key ' + 'with 401',
    async () => {
      const { key } = await t.newCaller('pro');
      const bad: Array<[string, string]> = [
        ['?from=2026-02-30', 'from'],
        ['?from=2026-03-02&to=2026-03-01', 'from'],
        ['?from=2020-01-01&to=2026-01-01', 'from'],
        ['?interval=week', 'interval'],
        ['?interval=hour&from=2026-01-01&to=2026-02-01', 'from'],
        ['?codes=all', ''],
      ];
      for (const [query, field] of bad) {
        const res = await statsOf(key, query);
        expect(res.statusCode, query).toBe(400);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        if (field) expect(JSON.stringify(res.json()), query).toContain(field);
      }
      const anonymous = await t.app.inject({ method: 'GET', url: '/api/v1/QRManager/stats' });
      expect(anonymous.statusCode).toBe(401);
    },
  );
});
