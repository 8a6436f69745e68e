// Contract suite for the UsageMeter port (monthly quotas and the per-key burst): every adapter runs these same cases.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { QrIdentity, UsageMeter } from '../../src/domain/ports/usage-meter.js';

export function usageMeterContract(adapterName: string, makeMeter: () => Promise<UsageMeter> | UsageMeter): void {
  describe(`UsageMeter contract: ${adapterName}`, () => {
    const period = '2026-11';
    const at = new Date('2026-11-15T12:00:00Z');
    const qr = (n: number): QrIdentity => ({ fingerprint: `fp-${n}`, type: 'text', payload: `payload ${n}` });
    const account = () => `acc_${randomUUID()}`;

    it('counts a request and a new QR, and a repeated code as a request only', async () => {
      const meter = await makeMeter();
      const id = account();
      const limits = { requests: 10, qrs: 5 };
      expect(await meter.reserve({ accountId: id, period, qr: qr(1), limits, at })).toMatchObject({
        ok: true,
        usage: { requests: 1, qrs: 1 },
      });
      expect(await meter.reserve({ accountId: id, period, qr: qr(1), limits, at })).toMatchObject({
        ok: true,
        usage: { requests: 2, qrs: 1 },
      });
      expect(await meter.usage(id, period)).toEqual({ requests: 2, qrs: 1 });
      const [record] = await meter.qrs(id, period, 10);
      expect(record).toMatchObject({ fingerprint: 'fp-1', type: 'text', payload: 'payload 1', generations: 2 });
    });

    it('refuses at the request limit and at the QR limit without changing anything', async () => {
      const meter = await makeMeter();
      const id = account();
      const limits = { requests: 3, qrs: 2 };
      await meter.reserve({ accountId: id, period, qr: qr(1), limits, at });
      await meter.reserve({ accountId: id, period, qr: qr(2), limits, at });
      expect(await meter.reserve({ accountId: id, period, qr: qr(3), limits, at })).toMatchObject({
        ok: false,
        reason: 'qr_quota_exceeded',
      });
      expect(await meter.reserve({ accountId: id, period, qr: qr(2), limits, at })).toMatchObject({ ok: true });
      expect(await meter.reserve({ accountId: id, period, qr: qr(1), limits, at })).toMatchObject({
        ok: false,
        reason: 'quota_exceeded',
      });
      expect(await meter.usage(id, period)).toEqual({ requests: 3, qrs: 2 });
    });

    it('treats a null limit as unlimited: that dimension is never refused, and usage is still counted', async () => {
      const meter = await makeMeter();
      const id = account();
      for (let i = 0; i < 30; i++) {
        expect(
          await meter.reserve({ accountId: id, period, qr: qr(i), limits: { requests: null, qrs: null }, at }),
        ).toMatchObject({ ok: true });
      }
      expect(await meter.usage(id, period)).toEqual({ requests: 30, qrs: 30 });
      // One dimension unlimited, the other still held to its limit.
      expect(
        await meter.reserve({ accountId: id, period, qr: qr(99), limits: { requests: null, qrs: 30 }, at }),
      ).toMatchObject({
        ok: false,
        reason: 'qr_quota_exceeded',
      });
      expect(
        await meter.reserve({ accountId: id, period, qr: qr(99), limits: { requests: 30, qrs: null }, at }),
      ).toMatchObject({
        ok: false,
        reason: 'quota_exceeded',
      });
      expect(await meter.usage(id, period)).toEqual({ requests: 30, qrs: 30 });
    });

    it('never exceeds either limit under concurrent reservations', async () => {
      const meter = await makeMeter();
      const id = account();
      const limits = { requests: 25, qrs: 7 };
      const outcomes = await Promise.all(
        Array.from({ length: 100 }, (_, i) => meter.reserve({ accountId: id, period, qr: qr(i % 10), limits, at })),
      );
      const usage = await meter.usage(id, period);
      expect(usage.requests).toBe(outcomes.filter((o) => o.ok).length);
      expect(usage.requests).toBeLessThanOrEqual(25);
      expect(usage.qrs).toBe(7);
      expect(await meter.qrs(id, period, 100)).toHaveLength(7);
    });

    it('refunds exactly one reservation, dropping a QR only when no generation of it remains', async () => {
      const meter = await makeMeter();
      const id = account();
      const limits = { requests: 10, qrs: 5 };
      const first = await meter.reserve({ accountId: id, period, qr: qr(1), limits, at });
      const second = await meter.reserve({ accountId: id, period, qr: qr(1), limits, at });
      if (!first.ok || !second.ok) throw new Error('reservations should succeed');
      await meter.refund(second.reservation);
      expect(await meter.usage(id, period)).toEqual({ requests: 1, qrs: 1 });
      await meter.refund(first.reservation);
      expect(await meter.usage(id, period)).toEqual({ requests: 0, qrs: 0 });
      expect(await meter.qrs(id, period, 10)).toEqual([]);
    });

    describe('burst (per key, sliding one-second window, checked in the same step)', () => {
      const roomy = { requests: 1_000, qrs: 100 };
      const burstKey = () => `key_${randomUUID()}`;
      const later = (ms: number) => new Date(at.getTime() + ms);

      it(
        'admits exactly burst.perSecond of many concurrent reservations of one key, and refuses the rest as ' +
          'rate_limited',
        async () => {
          const meter = await makeMeter();
          const id = account();
          const burst = { accountId: id, key: burstKey(), perSecond: 10 };
          const outcomes = await Promise.all(
            Array.from({ length: 40 }, (_, i) =>
              meter.reserve({ accountId: id, period, qr: qr(i % 3), limits: roomy, burst, at }),
            ),
          );
          expect(outcomes.filter((o) => o.ok)).toHaveLength(10);
          expect(outcomes.filter((o) => !o.ok).map((o) => (o.ok ? '' : o.reason))).toEqual(
            Array(30).fill('rate_limited'),
          );
          expect(outcomes.filter((o) => !o.ok).every((o) => o.burst?.used === 10)).toBe(true);
          expect(
            outcomes
              .filter((o) => o.ok)
              .map((o) => o.burst?.used)
              .sort((x, y) => x! - y!),
          ).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
          expect(await meter.usage(id, period)).toEqual({ requests: 10, qrs: 3 });
        },
      );

      it('slides: a reservation leaves the window exactly 1000 ms after it was made, and not before', async () => {
        const meter = await makeMeter();
        const id = account();
        const burst = { accountId: id, key: burstKey(), perSecond: 10 };
        const reserveAt = (ms: number) =>
          meter.reserve({ accountId: id, period, qr: qr(1), limits: roomy, burst, at: later(ms) });
        for (let i = 0; i < 5; i++) expect((await reserveAt(0)).ok).toBe(true);
        for (let i = 0; i < 5; i++) expect((await reserveAt(500)).ok).toBe(true);
        expect(await reserveAt(999)).toMatchObject({ ok: false, reason: 'rate_limited' });
        // The five made at 0 have left; the five made at 500 have not: a fixed window would admit ten here.
        for (let i = 0; i < 5; i++) expect((await reserveAt(1_000)).ok).toBe(true);
        expect(await reserveAt(1_000)).toMatchObject({ ok: false, reason: 'rate_limited' });
        expect(await reserveAt(1_499)).toMatchObject({ ok: false, reason: 'rate_limited' });
        expect((await reserveAt(1_500)).ok).toBe(true);
        expect(await meter.usage(id, period)).toEqual({ requests: 16, qrs: 1 });
      });

      it('leaves the monthly usage and the QR list exactly as they were when it refuses', async () => {
        const meter = await makeMeter();
        const id = account();
        const burst = { accountId: id, key: burstKey(), perSecond: 3 };
        for (let i = 0; i < 3; i++)
          expect((await meter.reserve({ accountId: id, period, qr: qr(1), limits: roomy, burst, at })).ok).toBe(true);
        const refused = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            meter.reserve({ accountId: id, period, qr: qr(10 + i), limits: roomy, burst, at }),
          ),
        );
        expect(refused.every((o) => !o.ok && o.reason === 'rate_limited')).toBe(true);
        expect(refused.every((o) => o.usage.requests === 3 && o.usage.qrs === 1)).toBe(true);
        expect(await meter.usage(id, period)).toEqual({ requests: 3, qrs: 1 });
        expect((await meter.qrs(id, period, 100)).map((r) => r.fingerprint)).toEqual(['fp-1']);
      });

      it(
        'is checked before the monthly limits, and ' + 'requests refused for the month never take a ' + 'burst slot',
        async () => {
          const meter = await makeMeter();
          const id = account();
          const burst = { accountId: id, key: burstKey(), perSecond: 5 };
          const tight = { requests: 3, qrs: 100 };
          for (let i = 0; i < 3; i++)
            expect((await meter.reserve({ accountId: id, period, qr: qr(1), limits: tight, burst, at })).ok).toBe(true);
          for (let i = 0; i < 10; i++)
            expect(await meter.reserve({ accountId: id, period, qr: qr(1), limits: tight, burst, at })).toMatchObject({
              ok: false,
              reason: 'quota_exceeded',
              burst: { used: 3 },
            });
          // The month gets room again (a plan upgrade): two burst slots are left in this second, not zero.
          expect((await meter.reserve({ accountId: id, period, qr: qr(1), limits: roomy, burst, at })).ok).toBe(true);
          expect((await meter.reserve({ accountId: id, period, qr: qr(1), limits: roomy, burst, at })).ok).toBe(true);
          // Now over both the burst and the month: the burst answers first.
          expect(await meter.reserve({ accountId: id, period, qr: qr(1), limits: tight, burst, at })).toMatchObject({
            ok: false,
            reason: 'rate_limited',
          });
          expect(await meter.usage(id, period)).toEqual({ requests: 5, qrs: 1 });
        },
      );

      it(
        'keeps keys apart while the month stays shared by ' + 'the account, and does not give a slot back on refund',
        async () => {
          const meter = await makeMeter();
          const id = account();
          const first = { accountId: id, key: burstKey(), perSecond: 2 };
          const second = { accountId: id, key: burstKey(), perSecond: 2 };
          const a1 = await meter.reserve({ accountId: id, period, qr: qr(1), limits: roomy, burst: first, at });
          expect((await meter.reserve({ accountId: id, period, qr: qr(1), limits: roomy, burst: first, at })).ok).toBe(
            true,
          );
          if (!a1.ok) throw new Error('the first reservation should succeed');
          await meter.refund(a1.reservation);
          expect(
            await meter.reserve({ accountId: id, period, qr: qr(1), limits: roomy, burst: first, at }),
          ).toMatchObject({ ok: false, reason: 'rate_limited' });
          expect(
            await meter.reserve({ accountId: id, period, qr: qr(1), limits: roomy, burst: second, at }),
          ).toMatchObject({
            ok: true,
            usage: { requests: 2 },
            burst: { used: 1 },
          });
          expect(await meter.usage(id, period)).toEqual({ requests: 2, qrs: 1 });
        },
      );

      it(
        'admitBurst takes slots of the same window as reserve, never touching the month, and refuses past the ' +
          'limit',
        async () => {
          const meter = await makeMeter();
          const id = account();
          const burst = { accountId: id, key: burstKey(), perSecond: 4 };
          expect((await meter.reserve({ accountId: id, period, qr: qr(1), limits: roomy, burst, at })).ok).toBe(true);
          const outcomes = await Promise.all(Array.from({ length: 10 }, () => meter.admitBurst(burst, at)));
          expect(outcomes.filter((o) => o.ok)).toHaveLength(3);
          expect(outcomes.filter((o) => !o.ok).every((o) => o.used === 4)).toBe(true);
          expect(await meter.reserve({ accountId: id, period, qr: qr(1), limits: roomy, burst, at })).toMatchObject({
            ok: false,
            reason: 'rate_limited',
          });
          expect(await meter.usage(id, period)).toEqual({ requests: 1, qrs: 1 });
          // A second later the window has moved on.
          expect(await meter.admitBurst(burst, later(1_001))).toEqual({ ok: true, used: 1 });
        },
      );

      it('applies no burst when none is given', async () => {
        const meter = await makeMeter();
        const id = account();
        const outcomes = await Promise.all(
          Array.from({ length: 30 }, () => meter.reserve({ accountId: id, period, qr: qr(1), limits: roomy, at })),
        );
        expect(outcomes.every((o) => o.ok && o.burst === undefined)).toBe(true);
      });
    });

    describe('a request without a code (reserveRequest: a decode)', () => {
      const roomy = { requests: 1_000, qrs: 100 };
      const burstKey = () => `key_${randomUUID()}`;
      const later = (ms: number) => new Date(at.getTime() + ms);

      it(
        'counts one request and no QR, leaves the QR list ' + 'alone, and is refused at the request limit only',
        async () => {
          const meter = await makeMeter();
          const id = account();
          expect(
            await meter.reserve({ accountId: id, period, qr: qr(1), limits: { requests: 3, qrs: 1 }, at }),
          ).toMatchObject({ ok: true });
          // The QR limit is full; a decode makes no code, so only the request limit can refuse it.
          expect(await meter.reserveRequest({ accountId: id, period, limits: { requests: 3 }, at })).toMatchObject({
            ok: true,
            usage: { requests: 2, qrs: 1 },
          });
          expect(await meter.reserveRequest({ accountId: id, period, limits: { requests: 3 }, at })).toMatchObject({
            ok: true,
            usage: { requests: 3, qrs: 1 },
          });
          expect(await meter.reserveRequest({ accountId: id, period, limits: { requests: 3 }, at })).toMatchObject({
            ok: false,
            reason: 'quota_exceeded',
            usage: { requests: 3, qrs: 1 },
          });
          expect(await meter.usage(id, period)).toEqual({ requests: 3, qrs: 1 });
          expect((await meter.qrs(id, period, 10)).map((r) => [r.fingerprint, r.generations])).toEqual([['fp-1', 1]]);
        },
      );

      it('never exceeds the request limit under concurrency, and counts with no limit at all', async () => {
        const meter = await makeMeter();
        const id = account();
        const outcomes = await Promise.all(
          Array.from({ length: 40 }, () =>
            meter.reserveRequest({ accountId: id, period, limits: { requests: 15 }, at }),
          ),
        );
        expect(outcomes.filter((o) => o.ok)).toHaveLength(15);
        expect(await meter.usage(id, period)).toEqual({ requests: 15, qrs: 0 });
        const other = account();
        for (let i = 0; i < 5; i++)
          await meter.reserveRequest({ accountId: other, period, limits: { requests: null }, at });
        expect(await meter.usage(other, period)).toEqual({ requests: 5, qrs: 0 });
      });

      it('refundRequest gives the request back once, however often it is called', async () => {
        const meter = await makeMeter();
        const id = account();
        const kept = await meter.reserveRequest({ accountId: id, period, limits: { requests: 10 }, at });
        const given = await meter.reserveRequest({ accountId: id, period, limits: { requests: 10 }, at });
        if (!kept.ok || !given.ok) throw new Error('reservations should succeed');
        await meter.refundRequest(given.reservation);
        await meter.refundRequest(given.reservation);
        expect(await meter.usage(id, period)).toEqual({ requests: 1, qrs: 0 });
      });

      it(
        'shares the burst window of reserve and admitBurst; a rate_limited or quota_exceeded refusal takes no ' +
          'slot and counts nothing',
        async () => {
          const meter = await makeMeter();
          const id = account();
          const burst = { accountId: id, key: burstKey(), perSecond: 3 };
          expect((await meter.reserve({ accountId: id, period, qr: qr(1), limits: roomy, burst, at })).ok).toBe(true);
          expect(
            await meter.reserveRequest({ accountId: id, period, limits: { requests: 100 }, burst, at }),
          ).toMatchObject({ ok: true, burst: { used: 2 } });
          // Over the month: refused as quota_exceeded, and the slot stays free for the next call.
          expect(
            await meter.reserveRequest({ accountId: id, period, limits: { requests: 2 }, burst, at }),
          ).toMatchObject({
            ok: false,
            reason: 'quota_exceeded',
          });
          expect((await meter.admitBurst(burst, at)).ok).toBe(true);
          expect(
            await meter.reserveRequest({ accountId: id, period, limits: { requests: 100 }, burst, at }),
          ).toMatchObject({
            ok: false,
            reason: 'rate_limited',
            burst: { used: 3 },
          });
          expect(await meter.usage(id, period)).toEqual({ requests: 2, qrs: 1 });
          expect(
            await meter.reserveRequest({ accountId: id, period, limits: { requests: 100 }, burst, at: later(1_001) }),
          ).toMatchObject({ ok: true });
        },
      );
    });

    it('keeps periods and accounts apart', async () => {
      const meter = await makeMeter();
      const a = account();
      const b = account();
      const limits = { requests: 1, qrs: 1 };
      expect((await meter.reserve({ accountId: a, period: '2026-10', qr: qr(1), limits, at })).ok).toBe(true);
      expect((await meter.reserve({ accountId: a, period, qr: qr(2), limits, at })).ok).toBe(true);
      expect((await meter.reserve({ accountId: b, period, qr: qr(3), limits, at })).ok).toBe(true);
      expect(await meter.usage(a, period)).toEqual({ requests: 1, qrs: 1 });
      expect(await meter.usage(b, '2026-10')).toEqual({ requests: 0, qrs: 0 });
    });
  });
}
