// Erasing a code's scans in Redis mode: the hot counters and the ledger, and a rollup caught between its read and its
// write; see scan-erase-suite.
import { describe, expect, it } from 'vitest';
import type { ScanLedger } from '../../src/domain/ports/scan-ledger.js';
import type { ScanDay } from '../../src/domain/scan.js';
import { rollupScans } from '../../src/services/rollup-scans.js';
import { codesApi, scan, USER_AGENTS } from '../helpers/codes.js';
import { useRedisScanApp } from '../helpers/redis-scan-app.js';
import { scanEraseSuite } from '../helpers/scan-erase-suite.js';

const context = useRedisScanApp();
scanEraseSuite('Redis mode', context);

describe('an erase during a rollup (Redis mode)', () => {
  it(
    'wins over the rollup that read the counts before it and wrote them after it, and the scan made after the ' +
      'erase is still counted once',
    async () => {
      const { t, flush, settle } = context();
      const { key } = await t.newCaller('pro');
      const code = await codesApi(t.app, key).created('https://example.com/erased');
      for (const ip of ['8.8.8.8', '8.8.4.4', '200.147.67.142'])
        await scan(t.app, code.slug, { ip, userAgent: USER_AGENTS.ios });
      await flush();

      // The rollup's write is held until the erase has run: the erase lands between its read and its write, and a
      // person scans once more in between.
      const ledger = t.stores.scanLedger;
      let erasedBeforeWrite = false;
      const caughtLedger: ScanLedger = Object.assign(Object.create(ledger) as ScanLedger, {
        apply: async (days: readonly ScanDay[]) => {
          if (!erasedBeforeWrite && days.some((day) => day.codeId === code.id)) {
            erasedBeforeWrite = true;
            expect(days.find((day) => day.codeId === code.id)?.scans).toBe(3);
            const erased = await t.app.inject({
              method: 'DELETE',
              url: `/api/v1/QRManager/codes/${code.id}/stats`,
              headers: { 'x-api-key': key },
            });
            expect(erased.statusCode, erased.body).toBe(204);
            await scan(t.app, code.slug, { ip: '8.8.8.8', userAgent: USER_AGENTS.android });
            await flush();
          }
          return ledger.apply(days);
        },
      });
      await rollupScans({ scanCounters: t.stores.scanCounters, scanLedger: caughtLedger }, { maxBatches: 1 });
      expect(erasedBeforeWrite).toBe(true);
      await settle();

      const stats = (await codesApi(t.app, key).stats(code.id)).json() as {
        totals: { scans: number; uniqueScanners: number };
        countries: Record<string, number>;
      };
      expect(stats.totals).toMatchObject({ scans: 1, uniqueScanners: 1 });
      expect(stats.countries).toEqual({ US: 1 });
      const allTime = (await codesApi(t.app, key).get(code.id)).json() as { scans: { allTime: number } };
      expect(allTime.scans.allTime).toBe(1);
    },
  );
});
