// Erasing a code's scans in either mode: DELETE /codes/{id}/stats takes every count and split away, new scans count
// from zero, the scan limit keeps its place, another tenant cannot, and the erase is in the audit log.
import { describe, expect, it } from 'vitest';
import { issueKey } from '../../src/services/api-keys.js';
import { BOT_AGENTS, codesApi, scan, USER_AGENTS } from './codes.js';
import { settledStats, type ScanSuiteContext } from './scan-stats.js';

export interface ScanEraseContext extends ScanSuiteContext {
  /** Brings recorded scans to storage but not (Redis mode) to the ledger: they wait in the hot counters. */
  flush(): Promise<void>;
}

const A = 'https://example.com/a';
const B = 'https://example.com/b';
const PEOPLE = ['200.147.67.142', '8.8.8.8', '200.147.67.143', '8.8.4.4'];

export function scanEraseSuite(mode: string, context: () => ScanEraseContext): void {
  describe(`erasing a code's scans (${mode})`, () => {
    const erase = (key: string, id: string) =>
      context().t.app.inject({
        method: 'DELETE',
        url: `/api/v1/QRManager/codes/${id}/stats`,
        headers: { 'x-api-key': key },
      });
    const statsOf = (key: string, id: string) => settledStats(context(), key, id);
    const allTimeOf = async (key: string, id: string) =>
      ((await codesApi(context().t.app, key).get(id)).json() as { scans: { allTime: number; last30Days: number } })
        .scans;
    /** The CSV export's rows that count anything (each day of the range has a row, zeros included). */
    const csvCounted = async (key: string, id: string) =>
      (
        await context().t.app.inject({
          method: 'GET',
          url: `/api/v1/QRManager/codes/${id}/stats.csv`,
          headers: { 'x-api-key': key },
        })
      ).body
        .trim()
        .split('\r\n')
        .slice(1)
        .filter((line) => !/^[^,]+,[^,]+,[^,]+,,,0,0(,0)+$/.test(line));

    it(
      'takes every count and split away (series, countries, devices, arms, bots, uniques, the CSV, the ' +
        'all-time count), answers 204, and counts new scans from zero while the scan limit keeps its place',
      async () => {
        const { t } = context();
        const { key } = await t.newCaller('pro');
        const created = await codesApi(t.app, key).create({
          split: [
            { target: A, weight: 50 },
            { target: B, weight: 50 },
          ],
          maxScans: 7,
          expiredTarget: 'https://example.com/sold-out',
        });
        expect(created.statusCode, created.body).toBe(201);
        const code = created.json() as { id: string; slug: string };
        for (const ip of PEOPLE) await scan(t.app, code.slug, { ip, userAgent: USER_AGENTS.ios, language: 'pt-BR' });
        await scan(t.app, code.slug, { ip: '8.8.8.8', userAgent: BOT_AGENTS.slack });
        const before = await statsOf(key, code.id);
        expect(before.totals).toEqual({ scans: 4, uniqueScanners: 4, bots: 1 });
        expect(before.countries).toEqual({ BR: 2, US: 2 });
        expect(Object.values(before.arms).reduce((a, b) => a + b, 0)).toBe(4);
        expect(await allTimeOf(key, code.id)).toEqual({ allTime: 4, last30Days: 4 });
        // The day's totals, BR, US and each arm sent a scan.
        expect(await csvCounted(key, code.id)).toHaveLength(3 + Object.keys(before.arms).length);

        // Two more scans wait where scans wait (Redis mode: the hot counters, not yet rolled up) when the erase comes.
        for (const ip of PEOPLE.slice(0, 2)) await scan(t.app, code.slug, { ip, userAgent: USER_AGENTS.ios });
        await context().flush();

        const erased = await erase(key, code.id);
        expect(erased.statusCode, erased.body).toBe(204);
        expect(erased.body).toBe('');
        const after = await statsOf(key, code.id);
        expect(after.totals).toEqual({ scans: 0, uniqueScanners: 0, bots: 0 });
        expect(after.series.every((point) => point.scans === 0 && point.uniqueScanners === 0)).toBe(true);
        expect([after.countries, after.arms, after.languages]).toEqual([{}, {}, []]);
        expect(Object.values(after.devices).every((n) => n === 0)).toBe(true);
        expect(await allTimeOf(key, code.id)).toEqual({ allTime: 0, last30Days: 0 });
        expect(await csvCounted(key, code.id)).toEqual([]);

        // A visitor seen before the erase is a new unique scanner after it; the limit still counts the six let
        // through, so the seventh scan is the last one sent to an arm.
        const next = await scan(t.app, code.slug, { ip: PEOPLE[0], userAgent: USER_AGENTS.ios });
        expect([A, B]).toContain(next.headers.location);
        const over = await scan(t.app, code.slug, { ip: PEOPLE[0], userAgent: USER_AGENTS.ios });
        expect(over.headers.location).toBe('https://example.com/sold-out');
        const counted = await statsOf(key, code.id);
        expect(counted.totals.uniqueScanners).toBe(1);
        expect(counted.totals.scans).toBe(2);
        expect(await allTimeOf(key, code.id)).toEqual({ allTime: 2, last30Days: 2 });
      },
    );

    it(
      "answers 404 for another account's code and 403 to a key without codes:write, erasing nothing, and " +
        'writes code.stats_erased to the audit log',
      async () => {
        const { t } = context();
        const owner = await t.newCaller('pro');
        const stranger = await t.newCaller('pro');
        const code = await codesApi(t.app, owner.key).created('https://example.com/kept');
        await scan(t.app, code.slug, { ip: '8.8.8.8', userAgent: USER_AGENTS.android });

        const foreign = await erase(stranger.key, code.id);
        expect(foreign.statusCode).toBe(404);
        expect(foreign.json()).toMatchObject({ code: 'not_found' });
        const deps = { ...t.stores, keyPepper: t.config.keyPepper, clock: () => t.clock.now };
        const reader = await issueKey(deps, owner.accountId, 'analytics', { scopes: ['analytics:read', 'admin'] });
        const denied = await erase(reader.secret, code.id);
        expect(denied.statusCode).toBe(403);
        expect(denied.json()).toMatchObject({ code: 'insufficient_scope', requiredScope: 'codes:write' });
        expect((await statsOf(owner.key, code.id)).totals.scans).toBe(1);

        expect((await erase(owner.key, code.id)).statusCode).toBe(204);
        const audit = await t.app.inject({
          method: 'GET',
          url: '/api/v1/QRManager/audit-log?action=code.stats_erased',
          headers: { 'x-api-key': reader.secret },
        });
        expect(audit.statusCode, audit.body).toBe(200);
        expect(audit.json().items).toEqual([
          expect.objectContaining({ action: 'code.stats_erased', target: { type: 'code', id: code.id } }),
        ]);
      },
    );
  });
}
