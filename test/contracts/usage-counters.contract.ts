// Contract suite for the UsageCounters port (the rollup's view of the hot meter): every adapter runs these same cases.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { UsageCounters } from '../../src/domain/ports/usage-counters.js';
import type { QrIdentity, UsageMeter } from '../../src/domain/ports/usage-meter.js';

export function usageCountersContract(
  adapterName: string,
  make: () => Promise<{ meter: UsageMeter; counters: UsageCounters }>,
): void {
  describe(`UsageCounters contract: ${adapterName}`, () => {
    const period = '2026-11';
    const at = new Date('2026-11-15T12:00:00Z');
    const limits = { requests: 100, qrs: 10 };
    const qr = (n: number): QrIdentity => ({ fingerprint: `fp-${n}`, type: 'text', payload: `payload ${n}` });
    const account = () => `acc_${randomUUID()}`;

    it('offers a changed account as an absolute snapshot, with its changed codes', async () => {
      const { meter, counters } = await make();
      const id = account();
      await meter.reserve({ accountId: id, period, qr: qr(1), limits, at });
      await meter.reserve({ accountId: id, period, qr: qr(1), limits, at });
      await meter.reserve({ accountId: id, period, qr: qr(2), limits, at });
      const [snapshot] = (await counters.changed(period, 100)).filter((s) => s.accountId === id);
      expect(snapshot).toMatchObject({ accountId: id, period, usage: { requests: 3, qrs: 2 }, removed: [] });
      expect(snapshot!.qrs.map((q) => [q.fingerprint, q.generations]).sort()).toEqual([
        ['fp-1', 2],
        ['fp-2', 1],
      ]);
      expect(snapshot!.qrs[0]).toMatchObject({ type: 'text', lastAt: at, firstAt: at });
      expect(await counters.periods()).toContain(period);
    });

    it('offers the requests of calls that make no code (decodes), and their refunds, to the rollup', async () => {
      const { meter, counters } = await make();
      const id = account();
      await meter.reserve({ accountId: id, period, qr: qr(1), limits, at });
      const acknowledged = (await counters.changed(period, 100)).filter((s) => s.accountId === id);
      await counters.acknowledge(acknowledged);
      const decoded = await meter.reserveRequest({ accountId: id, period, limits, at });
      const [snapshot] = (await counters.changed(period, 100)).filter((s) => s.accountId === id);
      expect(snapshot).toMatchObject({ usage: { requests: 2, qrs: 1 } });
      await counters.acknowledge([snapshot!]);
      if (!decoded.ok) throw new Error('the decode should be admitted');
      await meter.refundRequest(decoded.reservation);
      const [refunded] = (await counters.changed(period, 100)).filter((s) => s.accountId === id);
      expect(refunded).toMatchObject({ usage: { requests: 1, qrs: 1 } });
    });

    it('stops offering an acknowledged account until it changes again; then only the new change', async () => {
      const { meter, counters } = await make();
      const id = account();
      await meter.reserve({ accountId: id, period, qr: qr(1), limits, at });
      const first = (await counters.changed(period, 100)).filter((s) => s.accountId === id);
      await counters.acknowledge(first);
      expect((await counters.changed(period, 100)).filter((s) => s.accountId === id)).toEqual([]);
      await meter.reserve({ accountId: id, period, qr: qr(2), limits, at });
      const [second] = (await counters.changed(period, 100)).filter((s) => s.accountId === id);
      expect(second!.version).toBeGreaterThan(first[0]!.version);
      expect(second!.qrs.map((q) => q.fingerprint)).toEqual(['fp-2']);
      expect(second!.usage).toEqual({ requests: 2, qrs: 2 });
    });

    it('never hides a change made after the snapshot was taken', async () => {
      const { meter, counters } = await make();
      const id = account();
      await meter.reserve({ accountId: id, period, qr: qr(1), limits, at });
      const stale = (await counters.changed(period, 100)).filter((s) => s.accountId === id);
      await meter.reserve({ accountId: id, period, qr: qr(1), limits, at });
      await counters.acknowledge(stale);
      const [fresh] = (await counters.changed(period, 100)).filter((s) => s.accountId === id);
      expect(fresh!.usage.requests).toBe(2);
      expect(fresh!.qrs).toMatchObject([{ fingerprint: 'fp-1', generations: 2 }]);
    });

    it('reports a code whose every generation was refunded as removed', async () => {
      const { meter, counters } = await make();
      const id = account();
      const outcome = await meter.reserve({ accountId: id, period, qr: qr(1), limits, at });
      await counters.acknowledge((await counters.changed(period, 100)).filter((s) => s.accountId === id));
      if (!outcome.ok) throw new Error('reservation should succeed');
      await meter.refund(outcome.reservation);
      const [snapshot] = (await counters.changed(period, 100)).filter((s) => s.accountId === id);
      expect(snapshot).toMatchObject({ usage: { requests: 0, qrs: 0 }, qrs: [], removed: ['fp-1'] });
    });

    it('stops listing a retired period', async () => {
      const { meter, counters } = await make();
      const old = '2026-09';
      await meter.reserve({ accountId: account(), period: old, qr: qr(1), limits, at });
      expect(await counters.periods()).toContain(old);
      await counters.retire(old, new Date(Date.now() + 60_000));
      expect(await counters.periods()).not.toContain(old);
    });
  });
}
