// Scan retention in either mode: the daily scan-retention job reduces days older than the owner's plan keeps
// (scanRetentionDays) to their totals; all-time counts and the totals stay, younger days and longer plans keep all.
import { describe, expect, it } from 'vitest';
import { BACKGROUND_JOBS, type BackgroundJobDeps } from '../../src/services/background-jobs.js';
import { BOT_AGENTS, codesApi, scan, USER_AGENTS } from './codes.js';
import type { ScanStatsJson, ScanSuiteContext } from './scan-stats.js';

export type ScanRetentionContext = ScanSuiteContext;

const DAY_MS = 86_400_000;
const day = (at: Date) => at.toISOString().slice(0, 10);

export function scanRetentionSuite(mode: string, context: () => ScanRetentionContext): void {
  describe(`scan retention (${mode})`, () => {
    it(
      "keeps a free plan's scan detail 30 days and a pro plan's longer; older days keep their scan and bot " +
        'totals, and every all-time count stays',
      async () => {
        const { t } = context();
        const now = new Date();
        const free = await t.newCaller('free');
        const pro = await t.newCaller('pro');
        const freeCode = await codesApi(t.app, free.key).created('https://example.com/free');
        const proCode = await codesApi(t.app, pro.key).created('https://example.com/pro');
        const scanAt = async (at: Date, slug: string, ip: string, userAgent: string = USER_AGENTS.ios) => {
          t.clock.now = at;
          expect((await scan(t.app, slug, { ip, userAgent, language: 'pt-BR' })).statusCode).toBe(302);
        };
        const old = new Date(now.getTime() - 40 * DAY_MS);
        const recent = new Date(now.getTime() - 29 * DAY_MS);
        for (const slug of [freeCode.slug, proCode.slug]) {
          await scanAt(old, slug, '200.147.67.142');
          await scanAt(old, slug, '8.8.8.8');
          await scanAt(old, slug, '8.8.8.8', BOT_AGENTS.google);
          await scanAt(recent, slug, '200.147.67.143', USER_AGENTS.android);
        }
        await context().settle();
        t.clock.now = now;

        const job = BACKGROUND_JOBS.find((j) => j.name === 'scan-retention')!;
        const deps = { ...t.stores, plans: t.plans, clock: () => now } as unknown as BackgroundJobDeps;
        expect(await job.run(deps)).toMatchObject({ reduced: 1, done: true });

        const statsOf = async (key: string, id: string) => {
          const res = await codesApi(t.app, key).stats(id, `?from=${day(old)}&to=${day(now)}`);
          expect(res.statusCode).toBe(200);
          return res.json() as ScanStatsJson;
        };
        const swept = await statsOf(free.key, freeCode.id);
        expect(swept.totals).toEqual({ scans: 3, uniqueScanners: 1, bots: 1 });
        expect(swept.series.find((point) => point.at.startsWith(day(old)))).toMatchObject({
          scans: 2,
          uniqueScanners: 0,
        });
        // Only the day within the 30 days still says where, on what and in which language.
        expect(swept.countries).toEqual({ BR: 1 });
        expect(swept.devices).toMatchObject({ ios: 0, android: 1 });
        expect(swept.languages).toEqual([{ language: 'pt', scans: 1 }]);
        const freeView = (await codesApi(t.app, free.key).get(freeCode.id)).json() as { scans: { allTime: number } };
        expect(freeView.scans.allTime).toBe(3);

        const kept = await statsOf(pro.key, proCode.id);
        expect(kept.totals).toEqual({ scans: 3, uniqueScanners: 3, bots: 1 });
        expect(kept.countries).toEqual({ BR: 2, US: 1 });
        expect(kept.devices).toMatchObject({ ios: 2, android: 1 });

        // A second run finds nothing left to take.
        expect(await job.run(deps)).toMatchObject({ reduced: 0, done: true });
      },
    );
  });
}
