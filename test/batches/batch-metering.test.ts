// Batch metering on both meters (SQLite, Redis): all or nothing at acceptance, each item refunded at most once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStores } from '../../src/adapters/sqlite/sqlite-stores.js';
import { closeRedisClient, createRedisClient, settleConnection } from '../../src/adapters/redis/connection.js';
import { RedisUsageMeter } from '../../src/adapters/redis/usage-meter.redis.js';
import type { UsageMeter } from '../../src/domain/ports/usage-meter.js';
import { qrFingerprint } from '../../src/services/render-spec.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';

let redis: RedisServer;
let client: ReturnType<typeof createRedisClient>;
const sqlite = createSqliteStores(':memory:');

beforeAll(async () => {
  redis = await startRedisServer();
  client = createRedisClient(redis.url, { name: 'batch-metering-test' });
  await settleConnection(client);
}, 30_000);
afterAll(async () => {
  await closeRedisClient(client);
  await redis.destroy();
  await sqlite.close();
});

const code = (n: number) => ({
  fingerprint: qrFingerprint('url', `https://example.com/${n}`),
  type: 'url' as const,
  payload: `https://example.com/${n}`,
});
const at = new Date('2026-11-10T12:00:00Z');
const period = '2026-11';
let seq = 0;

describe.each([
  ['SQLite', () => sqlite.meter],
  ['Redis', () => new RedisUsageMeter(client, { keyPrefix: `test${++seq}:` })],
] as Array<[string, () => UsageMeter]>)('%s meter', (_name, meterFor) => {
  it('reserves a batch whole: a repeated code costs a request but one QR', async () => {
    const meter = meterFor();
    const accountId = `acc_whole${++seq}`;
    const outcome = await meter.reserveBatch({
      accountId,
      period,
      qrs: [code(1), code(2), code(1)],
      limits: { requests: 10, qrs: 5 },
      at,
    });
    expect(outcome).toEqual({ ok: true, usage: { requests: 3, qrs: 2 } });
    expect(await meter.usage(accountId, period)).toEqual({ requests: 3, qrs: 2 });
  });

  it('refuses a batch that does not fit, counting nothing, and says what it needed', async () => {
    const meter = meterFor();
    const accountId = `acc_refuse${++seq}`;
    await meter.reserveBatch({ accountId, period, qrs: [code(1)], limits: { requests: 10, qrs: 3 }, at });
    const tooManyQrs = await meter.reserveBatch({
      accountId,
      period,
      qrs: [code(1), code(2), code(3), code(4)],
      limits: { requests: 10, qrs: 3 },
      at,
    });
    expect(tooManyQrs).toEqual({
      ok: false,
      reason: 'qr_quota_exceeded',
      usage: { requests: 1, qrs: 1 },
      needed: { requests: 4, qrs: 3 },
    });
    const tooManyRequests = await meter.reserveBatch({
      accountId,
      period,
      qrs: Array.from({ length: 10 }, () => code(1)),
      limits: { requests: 10, qrs: 3 },
      at,
    });
    expect(tooManyRequests).toMatchObject({ ok: false, reason: 'quota_exceeded' });
    expect(await meter.usage(accountId, period)).toEqual({ requests: 1, qrs: 1 });
  });

  it(
    'refunds each item of a batch once, however often ' + 'asked; a code leaves the QR count with its last item',
    async () => {
      const meter = meterFor();
      const accountId = `acc_refund${++seq}`;
      await meter.reserveBatch({
        accountId,
        period,
        qrs: [code(1), code(2), code(2)],
        limits: { requests: 10, qrs: 5 },
        at,
      });
      const items = [
        { index: 0, fingerprint: code(1).fingerprint },
        { index: 1, fingerprint: code(2).fingerprint },
      ];
      expect(await meter.refundBatchItems({ accountId, period, batchId: 'bat_one', items })).toBe(2);
      expect(await meter.refundBatchItems({ accountId, period, batchId: 'bat_one', items })).toBe(0);
      expect(await meter.usage(accountId, period)).toEqual({ requests: 1, qrs: 1 });
      expect((await meter.qrs(accountId, period, 10)).map((qr) => qr.payload)).toEqual(['https://example.com/2']);
    },
  );
});
