// The usage rollup copies Redis counters into the store as absolute values: run twice, or replayed after a crash, the
// totals stay the same.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodOf } from '../../src/domain/period.js';
import type { UsageCounters } from '../../src/domain/ports/usage-counters.js';
import type { UsageLedger } from '../../src/domain/ports/usage-ledger.js';
import { rollupUsage } from '../../src/services/rollup-usage.js';
import { createTestApp, generate, type TestApp } from '../helpers/app.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';

let redis: RedisServer;
let t: TestApp;
let deps: { usageCounters: UsageCounters; usageLedger: UsageLedger };

beforeAll(async () => {
  redis = await startRedisServer();
  t = await createTestApp({ redis: { url: redis.url, keyPrefix: `t-${randomUUID()}:` } });
  deps = { usageCounters: t.stores.usageCounters!, usageLedger: t.stores.usageLedger! };
}, 60_000);

afterAll(async () => {
  await t?.close();
  await redis?.destroy();
});

const png = (content: string) => ({ content, type: 'text', outputFormat: 'png', size: 64 });

async function ledgerState(accountId: string) {
  const period = periodOf(t.clock.now);
  return {
    usage: await deps.usageLedger.usage(accountId, period),
    qrs: await deps.usageLedger.qrs(accountId, period, 100),
  };
}

describe('usage rollup', () => {
  it('writes the counters and the QR list to the store, and a second run changes nothing', async () => {
    const caller = await t.newCaller('free');
    for (const content of ['a', 'a', 'b', 'c'])
      expect((await generate(t.app, caller.key, png(content))).statusCode).toBe(200);
    // A render that fails is refunded and must not reach the store either.
    expect(
      (await generate(t.app, caller.key, { content: 'x'.repeat(2400), type: 'text', outputFormat: 'png' })).statusCode,
    ).toBe(422);

    expect((await rollupUsage(deps)).applied).toBeGreaterThan(0);
    const first = await ledgerState(caller.accountId);
    expect(first.usage).toEqual({ requests: 4, qrs: 3 });
    expect(first.qrs.map((q) => [q.payload, q.generations]).sort()).toEqual([
      ['a', 2],
      ['b', 1],
      ['c', 1],
    ]);

    expect(await rollupUsage(deps)).toEqual({ applied: 0, drained: true });
    expect(await ledgerState(caller.accountId)).toEqual(first);
  });

  it('replayed after a crash between writing and acknowledging, leaves the same totals', async () => {
    const caller = await t.newCaller('free');
    for (const content of ['a', 'b', 'b']) await generate(t.app, caller.key, png(content));
    const period = periodOf(t.clock.now);

    // A run that wrote its snapshots and died before acknowledging them...
    const crashed = (await deps.usageCounters.changed(period, 1_000)).filter((s) => s.accountId === caller.accountId);
    for (const snapshot of crashed) await deps.usageLedger.apply(snapshot);
    const afterCrash = await ledgerState(caller.accountId);
    expect(afterCrash.usage).toEqual({ requests: 3, qrs: 2 });

    // ...is replayed by the next run: the same absolute values are written again.
    await rollupUsage(deps);
    expect(await ledgerState(caller.accountId)).toEqual(afterCrash);
    // And a stale snapshot applied late (two runs overlapping) cannot move the totals back.
    await generate(t.app, caller.key, png('c'));
    await rollupUsage(deps);
    for (const snapshot of crashed) await deps.usageLedger.apply(snapshot);
    expect((await ledgerState(caller.accountId)).usage).toEqual({ requests: 4, qrs: 3 });
  });

  it('removes from the store a code whose only generation was refunded', async () => {
    const caller = await t.newCaller('free');
    const period = periodOf(t.clock.now);
    const qr = { fingerprint: `fp-${randomUUID()}`, type: 'text' as const, payload: 'refunded' };
    const outcome = await t.stores.meter.reserve({
      accountId: caller.accountId,
      period,
      qr,
      limits: { requests: 10, qrs: 5 },
      at: t.clock.now,
    });
    if (!outcome.ok) throw new Error('reservation should succeed');
    await rollupUsage(deps);
    expect((await ledgerState(caller.accountId)).qrs).toHaveLength(1);
    await t.stores.meter.refund(outcome.reservation);
    await rollupUsage(deps);
    expect(await ledgerState(caller.accountId)).toEqual({ usage: { requests: 0, qrs: 0 }, qrs: [] });
  });
});
