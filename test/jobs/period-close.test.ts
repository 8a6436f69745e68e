// The month boundary on a fake clock: the new month starts fresh with no reset, and the close archives the old one and
// retires its counters.
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../../src/adapters/redis/connection.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeRedisClient, createRedisClient, settleConnection } from '../../src/adapters/redis/connection.js';
import { COUNTER_RETENTION_MS } from '../../src/adapters/redis/usage-meter.redis.js';
import type { UsageCounters } from '../../src/domain/ports/usage-counters.js';
import type { UsageLedger } from '../../src/domain/ports/usage-ledger.js';
import { CLOSE_GRACE_MS, closePeriod } from '../../src/services/close-period.js';
import { rollupUsage } from '../../src/services/rollup-usage.js';
import { createTestApp, generate, type TestApp } from '../helpers/app.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';

const keyPrefix = `t-${randomUUID()}:`;
let redis: RedisServer;
let client: RedisClient;
let t: TestApp;
let deps: { usageCounters: UsageCounters; usageLedger: UsageLedger; clock: () => Date };

beforeAll(async () => {
  redis = await startRedisServer();
  client = createRedisClient(redis.url, { name: 'period-close-test' });
  await settleConnection(client);
  t = await createTestApp({ redis: { url: redis.url, keyPrefix }, now: new Date('2030-01-31T23:59:30Z') });
  deps = { usageCounters: t.stores.usageCounters!, usageLedger: t.stores.usageLedger!, clock: () => t.clock.now };
}, 60_000);

afterAll(async () => {
  await t?.close();
  await closeRedisClient(client);
  await redis?.destroy();
});

const png = (content: string) => ({ content, type: 'text', outputFormat: 'png', size: 64 });
const expireTime = (key: string) => client.call('EXPIRETIME', key) as Promise<number>;
const seconds = (ms: number) => Math.ceil(ms / 1000);

describe('the period close across a month boundary', () => {
  it('starts the new month from zero without a reset, then archives and retires the finished month', async () => {
    const caller = await t.newCaller('free'); // 5 distinct QRs a month
    for (let i = 0; i < 5; i++) expect((await generate(t.app, caller.key, png(`jan ${i}`))).statusCode).toBe(200);
    const refused = await generate(t.app, caller.key, png('jan 5'));
    expect(refused.statusCode).toBe(429);
    expect(refused.json().code).toBe('qr_quota_exceeded');
    expect(refused.headers['retry-after']).toBe('30');

    t.clock.now = new Date('2030-02-01T00:00:30Z');
    expect((await generate(t.app, caller.key, png('feb 0'))).statusCode).toBe(200);
    expect(await t.stores.meter.usage(caller.accountId, '2030-02')).toEqual({ requests: 1, qrs: 1 });
    expect(await t.stores.meter.usage(caller.accountId, '2030-01')).toEqual({ requests: 5, qrs: 5 });

    const january = `${keyPrefix}usage:{a:${caller.accountId}}:2030-01:totals`;
    const february = `${keyPrefix}usage:{a:${caller.accountId}}:2030-02:totals`;
    // Counters are period-keyed and expire on their own well after their month: nothing ever resets them.
    expect(await expireTime(january)).toBe(seconds(Date.parse('2030-02-01T00:00:00Z') + COUNTER_RETENTION_MS));

    expect(await closePeriod(deps)).toEqual({ closed: ['2030-01'], open: [] });
    expect(await deps.usageLedger.usage(caller.accountId, '2030-01')).toEqual({ requests: 5, qrs: 5 });
    expect(await deps.usageLedger.qrs(caller.accountId, '2030-01', 10)).toHaveLength(5);
    expect(await deps.usageCounters.periods()).toEqual(['2030-02']);
    expect(await expireTime(january)).toBe(seconds(t.clock.now.getTime() + CLOSE_GRACE_MS));
    expect(await expireTime(february)).toBe(seconds(Date.parse('2030-03-01T00:00:00Z') + COUNTER_RETENTION_MS));

    // Closing again finds nothing to do; the rollup leaves the closed month alone and keeps the open one current.
    expect(await closePeriod(deps)).toEqual({ closed: [], open: [] });
    await rollupUsage(deps);
    expect(await deps.usageLedger.usage(caller.accountId, '2030-01')).toEqual({ requests: 5, qrs: 5 });
    expect(await deps.usageLedger.usage(caller.accountId, '2030-02')).toEqual({ requests: 1, qrs: 1 });

    // Once the retired counters are gone, reads of the closed month come from the store.
    const gone = await client.keys(`${keyPrefix}usage:{a:${caller.accountId}}:2030-01:*`);
    await client.del(...gone);
    expect(await t.stores.meter.usage(caller.accountId, '2030-01')).toEqual({ requests: 5, qrs: 5 });
    expect((await t.stores.meter.qrs(caller.accountId, '2030-01', 10)).map((q) => q.payload).sort()).toEqual([
      'jan 0',
      'jan 1',
      'jan 2',
      'jan 3',
      'jan 4',
    ]);
  }, 30_000);
});
