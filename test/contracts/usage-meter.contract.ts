// Contract suite for the UsageMeter port: every adapter runs these same cases.
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
      expect(await meter.reserve({ accountId: id, period, qr: qr(1), limits, at })).toMatchObject({ ok: true, usage: { requests: 1, qrs: 1 } });
      expect(await meter.reserve({ accountId: id, period, qr: qr(1), limits, at })).toMatchObject({ ok: true, usage: { requests: 2, qrs: 1 } });
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
      expect(await meter.reserve({ accountId: id, period, qr: qr(3), limits, at })).toMatchObject({ ok: false, reason: 'qr_quota_exceeded' });
      expect(await meter.reserve({ accountId: id, period, qr: qr(2), limits, at })).toMatchObject({ ok: true });
      expect(await meter.reserve({ accountId: id, period, qr: qr(1), limits, at })).toMatchObject({ ok: false, reason: 'quota_exceeded' });
      expect(await meter.usage(id, period)).toEqual({ requests: 3, qrs: 2 });
    });

    it('never exceeds either limit under concurrent reservations', async () => {
      const meter = await makeMeter();
      const id = account();
      const limits = { requests: 25, qrs: 7 };
      const outcomes = await Promise.all(Array.from({ length: 100 }, (_, i) => meter.reserve({ accountId: id, period, qr: qr(i % 10), limits, at })));
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
