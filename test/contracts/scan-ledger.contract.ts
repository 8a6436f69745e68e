// Contract suites for the scan ports: the ledger (absolute daily values) and the recorders (every scan counted once).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ScanLedger, ScanRecorder } from '../../src/domain/ports/scan-ledger.js';
import { emptyScanDay, type ScanDay } from '../../src/domain/scan.js';

export function scanLedgerContract(adapterName: string, makeLedger: () => ScanLedger | Promise<ScanLedger>): void {
  describe(`ScanLedger contract: ${adapterName}`, () => {
    const day = (codeId: string, d: string, scans: number, bots = 0): ScanDay => ({
      ...emptyScanDay(codeId, d),
      scans,
      uniques: Math.ceil(scans / 2),
      bots,
      devices: { ios: scans },
      languages: { pt: scans },
      arms: { 'default:0': scans, 'rules[1]:1': 1 },
      countries: { BR: scans },
      cities: { 'BR|São Paulo|São Paulo': scans },
      hours: { '09': scans },
      hourUniques: { '09': Math.ceil(scans / 2) },
    });

    it('keeps absolute values per code and day, and returns a range oldest first', async () => {
      const ledger = await makeLedger();
      const codeId = `dyn_${randomUUID()}`;
      await ledger.apply([
        day(codeId, '2026-03-02', 4),
        day(codeId, '2026-03-01', 2),
        day(codeId, '2026-04-01', 9),
        day(`dyn_${randomUUID()}`, '2026-03-01', 7),
      ]);
      expect(await ledger.days(codeId, '2026-03-01', '2026-03-31')).toEqual([
        day(codeId, '2026-03-01', 2),
        day(codeId, '2026-03-02', 4),
      ]);
    });

    it("erases one code's days, and only its own", async () => {
      const ledger = await makeLedger();
      const [erased, kept] = [`dyn_${randomUUID()}`, `dyn_${randomUUID()}`];
      await ledger.apply([day(erased, '2026-03-01', 2), day(erased, '2026-03-02', 4), day(kept, '2026-03-01', 7)]);
      await ledger.erase(erased);
      expect(await ledger.days(erased, '2026-01-01', '2026-12-31')).toEqual([]);
      expect(await ledger.scansSince([erased, kept], '2026-01-01')).toEqual(new Map([[kept, 7]]));
      expect(await ledger.days(kept, '2026-03-01', '2026-03-01')).toEqual([day(kept, '2026-03-01', 7)]);
      await ledger.apply([day(erased, '2026-03-02', 1)]);
      expect(await ledger.days(erased, '2026-01-01', '2026-12-31')).toEqual([day(erased, '2026-03-02', 1)]);
    });

    it('reduces the days before a day to their totals, for the named codes only, counting each day once', async () => {
      const ledger = await makeLedger();
      const [swept, other] = [`dyn_${randomUUID()}`, `dyn_${randomUUID()}`];
      await ledger.apply([
        day(swept, '2026-03-01', 2, 1),
        day(swept, '2026-03-02', 4),
        day(swept, '2026-03-03', 5),
        day(other, '2026-03-01', 7),
      ]);
      expect(await ledger.keepTotalsBefore([swept], '2026-03-03')).toBe(2);
      expect(await ledger.days(swept, '2026-03-01', '2026-03-31')).toEqual([
        { ...emptyScanDay(swept, '2026-03-01'), scans: 2, bots: 1 },
        { ...emptyScanDay(swept, '2026-03-02'), scans: 4 },
        day(swept, '2026-03-03', 5),
      ]);
      expect(await ledger.days(other, '2026-03-01', '2026-03-01')).toEqual([day(other, '2026-03-01', 7)]);
      expect(await ledger.scansSince([swept], '2026-03-01')).toEqual(new Map([[swept, 11]]));
      expect(await ledger.keepTotalsBefore([swept], '2026-03-03')).toBe(0);
      expect(await ledger.keepTotalsBefore([], '2026-03-03')).toBe(0);
    });

    it('changes nothing when a snapshot is applied again, or an older one arrives late', async () => {
      const ledger = await makeLedger();
      const codeId = `dyn_${randomUUID()}`;
      await ledger.apply([day(codeId, '2026-03-01', 5)]);
      await ledger.apply([day(codeId, '2026-03-01', 5)]);
      await ledger.apply([day(codeId, '2026-03-01', 3)]);
      expect(await ledger.days(codeId, '2026-03-01', '2026-03-01')).toEqual([day(codeId, '2026-03-01', 5)]);
      await ledger.apply([day(codeId, '2026-03-01', 8)]);
      expect((await ledger.days(codeId, '2026-03-01', '2026-03-01'))[0]?.scans).toBe(8);
    });

    it('sums each code of a page from a day on, leaving out codes without a scan', async () => {
      const ledger = await makeLedger();
      const [a, b, quiet] = [`dyn_${randomUUID()}`, `dyn_${randomUUID()}`, `dyn_${randomUUID()}`];
      await ledger.apply([
        day(a, '2026-02-27', 100),
        day(a, '2026-03-01', 2),
        day(a, '2026-03-05', 3),
        day(b, '2026-03-02', 7),
      ]);
      expect(await ledger.scansSince([a, b, quiet], '2026-02-28')).toEqual(
        new Map([
          [a, 5],
          [b, 7],
        ]),
      );
    });

    it("returns a page of codes' days within a range, and nothing of codes outside the page", async () => {
      const ledger = await makeLedger();
      const [a, b, other] = [`dyn_${randomUUID()}`, `dyn_${randomUUID()}`, `dyn_${randomUUID()}`];
      await ledger.apply([
        day(a, '2026-02-27', 100),
        day(a, '2026-03-01', 2),
        day(b, '2026-03-02', 7),
        day(other, '2026-03-01', 9),
      ]);
      const days = await ledger.daysOfCodes([a, b], '2026-02-28', '2026-03-31');
      expect(days.sort((x, y) => x.day.localeCompare(y.day))).toEqual([
        day(a, '2026-03-01', 2),
        day(b, '2026-03-02', 7),
      ]);
      expect(await ledger.daysOfCodes([], '2026-01-01', '2026-12-31')).toEqual([]);
    });

    it('takes a snapshot with more bots and no more scans, and never moves bots back', async () => {
      const ledger = await makeLedger();
      const codeId = `dyn_${randomUUID()}`;
      await ledger.apply([day(codeId, '2026-03-01', 5, 1)]);
      await ledger.apply([day(codeId, '2026-03-01', 5, 3)]);
      expect(await ledger.days(codeId, '2026-03-01', '2026-03-01')).toEqual([day(codeId, '2026-03-01', 5, 3)]);
      await ledger.apply([day(codeId, '2026-03-01', 5, 2)]);
      expect((await ledger.days(codeId, '2026-03-01', '2026-03-01'))[0]?.bots).toBe(3);
    });
  });
}

/**
 * `read` returns what the system of record holds for the code and day once everything recorded was flushed (and rolled
 * up).
 */
/**
 * `uniquesTolerance` is 0 for an exact recorder. A HyperLogLog one may lose a visitor whose hash lands in a register
 * another visitor already filled with a higher rank: with 30 visitors in 16,384 registers that happens in about one
 * run in forty (the salt is new each run), so it is allowed that much and no more.
 */
export function scanRecorderContract(
  adapterName: string,
  make: () => Promise<{ recorder: ScanRecorder; read(codeId: string, day: string): Promise<ScanDay | undefined> }>,
  uniquesTolerance = 0,
): void {
  describe(`ScanRecorder contract: ${adapterName}`, () => {
    it(
      'counts every scan once, each visitor once a day, with the device, language, split arm, country, city and ' +
        'hour split, bots apart',
      async () => {
        const { recorder, read } = await make();
        const codeId = `dyn_${randomUUID()}`;
        const at = new Date(Date.UTC(2026, 2, 1, 12));
        for (let i = 0; i < 300; i++)
          recorder.record({
            codeId,
            accountId: 'acc_test',
            at,
            visitor: `v${i % 30}`,
            device: i % 3 === 0 ? 'ios' : 'android',
            language: i % 2 === 0 ? 'en' : 'pt',
            ...(i % 5 === 0 ? {} : { arm: i % 5 === 1 ? 'rules[0]:1' : 'default:0' }),
            place:
              i % 4 === 0
                ? { country: 'BR', region: 'São Paulo', city: 'Campinas' }
                : i % 4 === 1
                  ? { country: 'US' }
                  : null,
            bot: false,
          });
        // Crawlers and link previews: counted apart, in no split and as no visitor.
        for (let i = 0; i < 7; i++)
          recorder.record({
            codeId,
            accountId: 'acc_test',
            at,
            visitor: `bot${i}`,
            device: 'other',
            language: 'en',
            place: null,
            bot: true,
          });
        recorder.record({
          codeId,
          accountId: 'acc_test',
          at: new Date(Date.UTC(2026, 2, 2, 1)),
          visitor: 'v0',
          device: 'desktop',
          language: 'other',
          place: null,
          bot: false,
        });
        await recorder.flush();
        const firstDay = await read(codeId, '2026-03-01');
        expect(firstDay).toEqual({
          codeId,
          day: '2026-03-01',
          scans: 300,
          uniques: expect.any(Number),
          bots: 7,
          devices: { ios: 100, android: 200 },
          languages: { en: 150, pt: 150 },
          arms: { 'default:0': 180, 'rules[0]:1': 60 },
          countries: { BR: 75, US: 75, other: 150 },
          cities: { 'BR|São Paulo|Campinas': 75 },
          hours: { '12': 300 },
          hourUniques: { '12': expect.any(Number) },
        });
        expect(Math.abs((firstDay?.uniques ?? 0) - 30)).toBeLessThanOrEqual(uniquesTolerance);
        expect(Math.abs((firstDay?.hourUniques['12'] ?? 0) - 30)).toBeLessThanOrEqual(uniquesTolerance);
        // The same visitor on the next day counts again there: the salt changes every day.
        expect(await read(codeId, '2026-03-02')).toMatchObject({
          scans: 1,
          uniques: 1,
          devices: { desktop: 1 },
          arms: {},
        });
        expect(recorder.unrecorded()).toBe(0);
      },
    );
  });
}
