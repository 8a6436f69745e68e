// Contract suite for the UsageLedger port: every adapter runs these same cases.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { UsageLedger, UsageSnapshot } from '../../src/domain/ports/usage-ledger.js';
import type { QrRecord } from '../../src/domain/ports/usage-meter.js';

export function usageLedgerContract(adapterName: string, makeLedger: () => Promise<UsageLedger> | UsageLedger): void {
  describe(`UsageLedger contract: ${adapterName}`, () => {
    const period = '2026-11';
    const qr = (n: number, generations: number, lastAt = 1_000 + n): QrRecord => ({
      fingerprint: `fp-${n}`,
      type: 'text',
      payload: `payload ${n}`,
      generations,
      firstAt: new Date(500),
      lastAt: new Date(lastAt),
    });
    const snapshot = (accountId: string, version: number, over: Partial<UsageSnapshot> = {}): UsageSnapshot => ({
      accountId,
      period,
      version,
      usage: { requests: version, qrs: 1 },
      qrs: [],
      removed: [],
      ...over,
    });
    const account = () => `acc_${randomUUID()}`;

    it('stores absolute values: the same snapshot applied twice leaves what applying it once left', async () => {
      const ledger = await makeLedger();
      const id = account();
      const s = snapshot(id, 3, { usage: { requests: 3, qrs: 2 }, qrs: [qr(1, 2), qr(2, 1)] });
      await ledger.apply(s);
      const once = { usage: await ledger.usage(id, period), qrs: await ledger.qrs(id, period, 10) };
      await ledger.apply(s);
      expect({ usage: await ledger.usage(id, period), qrs: await ledger.qrs(id, period, 10) }).toEqual(once);
      expect(once.usage).toEqual({ requests: 3, qrs: 2 });
      expect(once.qrs).toEqual([qr(2, 1), qr(1, 2)]);
    });

    it('keeps the newest version when an older snapshot arrives late', async () => {
      const ledger = await makeLedger();
      const id = account();
      await ledger.apply(snapshot(id, 7, { usage: { requests: 7, qrs: 1 }, qrs: [qr(1, 7)] }));
      await ledger.apply(snapshot(id, 5, { usage: { requests: 5, qrs: 1 }, qrs: [qr(1, 5)] }));
      expect(await ledger.usage(id, period)).toEqual({ requests: 7, qrs: 1 });
      expect((await ledger.qrs(id, period, 10))[0]?.generations).toBe(7);
    });

    it('stops listing a removed code, and a late older snapshot cannot bring it back', async () => {
      const ledger = await makeLedger();
      const id = account();
      await ledger.apply(snapshot(id, 2, { qrs: [qr(1, 1), qr(2, 1)] }));
      await ledger.apply(snapshot(id, 4, { usage: { requests: 1, qrs: 1 }, removed: ['fp-2'] }));
      await ledger.apply(snapshot(id, 3, { qrs: [qr(2, 1)] }));
      expect((await ledger.qrs(id, period, 10)).map((q) => q.fingerprint)).toEqual(['fp-1']);
      await ledger.apply(snapshot(id, 6, { usage: { requests: 2, qrs: 2 }, qrs: [qr(2, 1, 9_000)] }));
      expect((await ledger.qrs(id, period, 10)).map((q) => q.fingerprint)).toEqual(['fp-2', 'fp-1']);
    });

    it('lists most recent first, within the limit, and keeps accounts and periods apart', async () => {
      const ledger = await makeLedger();
      const a = account();
      await ledger.apply(snapshot(a, 1, { qrs: [qr(1, 1, 100), qr(2, 1, 300), qr(3, 1, 200)] }));
      expect((await ledger.qrs(a, period, 2)).map((q) => q.fingerprint)).toEqual(['fp-2', 'fp-3']);
      expect(await ledger.usage(a, '2026-10')).toBeUndefined();
      expect(await ledger.usage(account(), period)).toBeUndefined();
      expect(await ledger.qrs(account(), period, 10)).toEqual([]);
    });
  });
}
