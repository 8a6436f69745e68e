// CSV exports of scan statistics: one code's days equal its JSON statistics, with their countries and split arms; the
// account's
// export holds every code's scanned days.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { codesApi, scan, USER_AGENTS } from '../helpers/codes.js';

const t = useTestApp();

interface Stats {
  series: Array<{ at: string; scans: number; uniqueScanners: number }>;
  devices: Record<string, number>;
}

/** Cells here hold no comma: a quoted one only loses its quotes. */
function parseCsv(body: string): Array<Record<string, string>> {
  const [header, ...rows] = body.trimEnd().split('\r\n');
  const names = header!.split(',');
  const unquoted = (cell: string) => (cell.startsWith('"') ? cell.slice(1, -1).replaceAll('""', '"') : cell);
  return rows.map((line) => Object.fromEntries(line.split(',').map((value, i) => [names[i]!, unquoted(value)])));
}

/** The rows a day's totals are on: no country, no arm. */
const totalsOnly = (rows: Array<Record<string, string>>) => rows.filter((r) => r.country === '' && r.arm === '');

describe('stats CSV exports', () => {
  it(
    'match the JSON statistics, day by day and device ' + "by device, for one code and for the account's codes",
    async () => {
      const { key } = await t.newCaller('pro');
      const api = codesApi(t.app, key);
      const first = await api.created('https://example.com/1');
      const second = await api.created('https://example.com/2');
      const unscanned = await api.created('https://example.com/3');
      const day1 = new Date('2026-04-10T09:00:00Z');
      const day2 = new Date('2026-04-12T23:59:00Z');
      const scans: Array<[string, Date, keyof typeof USER_AGENTS, string]> = [
        [first.slug, day1, 'ios', '10.0.0.1'],
        [first.slug, day1, 'ios', '10.0.0.1'],
        [first.slug, day1, 'android', '10.0.0.2'],
        [first.slug, day2, 'desktop', '10.0.0.3'],
        [second.slug, day2, 'other', '10.0.0.4'],
      ];
      for (const [slug, at, device, ip] of scans) {
        t.clock.now = at;
        expect((await scan(t.app, slug, { userAgent: USER_AGENTS[device], ip })).statusCode).toBe(302);
        await t.stores.scans.flush();
      }
      t.clock.now = new Date('2026-04-20T00:00:00Z');
      const range = '?from=2026-04-09&to=2026-04-13';

      const csv = await t.app.inject({
        method: 'GET',
        url: `/api/v1/QRManager/codes/${first.id}/stats.csv${range}`,
        headers: { 'x-api-key': key },
      });
      expect(csv.statusCode).toBe(200);
      expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(csv.headers['content-disposition']).toBe(
        `attachment; filename="${first.id}-stats-2026-04-09-2026-04-13.csv"`,
      );
      expect(csv.body.split('\r\n')[0]).toBe(
        'day,code_id,slug,country,arm,scans,unique_scanners,ios,android,desktop,other',
      );
      const rows = totalsOnly(parseCsv(csv.body));
      const json = (await api.stats(first.id, range)).json() as Stats;
      expect(
        rows.map((r) => ({
          at: `${r.day}T00:00:00.000Z`,
          scans: Number(r.scans),
          uniqueScanners: Number(r.unique_scanners),
        })),
      ).toEqual(json.series);
      for (const device of ['ios', 'android', 'desktop', 'other'])
        expect(rows.reduce((n, r) => n + Number(r[device]), 0)).toBe(json.devices[device]);
      expect(rows.find((r) => r.day === '2026-04-10')).toEqual({
        day: '2026-04-10',
        code_id: first.id,
        slug: first.slug,
        country: '',
        arm: '',
        scans: '3',
        unique_scanners: '2',
        ios: '2',
        android: '1',
        desktop: '0',
        other: '0',
      });

      const all = await t.app.inject({
        method: 'GET',
        url: `/api/v1/QRManager/codes/stats.csv${range}`,
        headers: { 'x-api-key': key },
      });
      expect(all.statusCode).toBe(200);
      const allRows = totalsOnly(parseCsv(all.body));
      expect(allRows.map((r) => [r.code_id, r.day, r.scans]).sort()).toEqual(
        [
          [second.id, '2026-04-12', '1'],
          [first.id, '2026-04-10', '3'],
          [first.id, '2026-04-12', '1'],
        ].sort(),
      );
      // A code's rows stay together, its days in order.
      expect(allRows.filter((r) => r.code_id === first.id).map((r) => r.day)).toEqual(['2026-04-10', '2026-04-12']);
      expect(allRows.some((r) => r.code_id === unscanned.id)).toBe(false);
      t.clock.now = new Date();
    },
  );

  it(
    'give each day its countries and split arms on rows ' + 'of their own, adding up to the day, cells quoted',
    async () => {
      const { key } = await t.newCaller('pro');
      const api = codesApi(t.app, key);
      const res = await api.create({
        split: [
          { target: 'https://example.com/a', weight: 50 },
          { target: 'https://example.com/b', weight: 50 },
        ],
      });
      expect(res.statusCode, res.body).toBe(201);
      const code = res.json() as { id: string; slug: string };
      t.clock.now = new Date('2026-04-10T09:00:00Z');
      const visitors = ['200.147.67.142', '200.147.67.142', '8.8.8.8', '10.0.0.9'];
      for (const ip of visitors)
        expect((await scan(t.app, code.slug, { ip, userAgent: USER_AGENTS.ios })).statusCode).toBe(302);
      await t.stores.scans.flush();
      t.clock.now = new Date('2026-04-20T00:00:00Z');
      const csv = await t.app.inject({
        method: 'GET',
        url: `/api/v1/QRManager/codes/${code.id}/stats.csv?from=2026-04-10&to=2026-04-10`,
        headers: { 'x-api-key': key },
      });
      expect(csv.statusCode).toBe(200);
      const json = (await api.stats(code.id, '?from=2026-04-10&to=2026-04-10')).json() as {
        arms: Record<string, number>;
      };
      const lines = csv.body.trimEnd().split('\r\n').slice(1);
      expect(lines.slice(0, 4)).toEqual([
        `2026-04-10,${code.id},${code.slug},,,4,3,4,0,0,0`,
        `2026-04-10,${code.id},${code.slug},"BR",,2,,,,,`,
        `2026-04-10,${code.id},${code.slug},"US",,1,,,,,`,
        `2026-04-10,${code.id},${code.slug},"other",,1,,,,,`,
      ]);
      const arms = parseCsv(csv.body).filter((r) => r.arm !== '');
      expect(Object.fromEntries(arms.map((r) => [r.arm, Number(r.scans)]))).toEqual(json.arms);
      expect(arms.reduce((n, r) => n + Number(r.scans), 0)).toBe(4);
      expect(lines).toHaveLength(4 + arms.length);
      t.clock.now = new Date();
    },
  );

  it("refuse a bad range with 400 and another account's code with 404, as problem documents", async () => {
    const owner = await t.newCaller('pro');
    const code = await codesApi(t.app, owner.key).created('https://example.com/x');
    const stranger = await t.newCaller('pro');
    const get = (url: string, key: string) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
    const foreign = await get(`/api/v1/QRManager/codes/${code.id}/stats.csv`, stranger.key);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.headers['content-type']).toMatch(/^application\/problem\+json/);
    const bad = await get('/api/v1/QRManager/codes/stats.csv?from=2026-05-01&to=2026-04-01', owner.key);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'invalid_request', errors: [{ field: 'from' }] });
    const strangerAll = parseCsv((await get('/api/v1/QRManager/codes/stats.csv', stranger.key)).body);
    expect(strangerAll).toEqual([]);
  });
});
