// `qrm redis migrate-keys` on a real redis-server holding the earlier, untagged key layout: nothing of the month is
// reset.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeRedisClient,
  createRedisClient,
  settleConnection,
  type RedisClient,
} from '../../src/adapters/redis/connection.js';
import { RedisScanEventSource } from '../../src/adapters/redis/scan-event-source.redis.js';
import { RedisUsageCounters } from '../../src/adapters/redis/usage-counters.redis.js';
import { RedisUsageMeter } from '../../src/adapters/redis/usage-meter.redis.js';
import { runCli } from '../helpers/processes.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';

let redis: RedisServer;
let client: RedisClient;

beforeAll(async () => {
  redis = await startRedisServer();
  client = createRedisClient(redis.url, { name: 'migrate-keys-test' });
  await settleConnection(client);
});
afterAll(async () => {
  await closeRedisClient(client);
  await redis?.destroy();
});

const period = '2030-05';
// The month's end and 35 days, as the earlier release set it.
const expireAt = Math.ceil(Date.parse('2030-07-06T00:00:00Z') / 1000);
const info = (payload: string, firstAt: number) => JSON.stringify(['text', payload, String(firstAt)]);

/** What an earlier release's scripts left for one account this month: 3 requests over two codes, one not rolled up. */
async function writeEarlierLayout(accountId: string): Promise<void> {
  const base = `qrm:usage:${period}:${accountId}:`;
  await client
    .multi()
    .hset(`${base}totals`, 'requests', 3, 'version', 3)
    .hset(`${base}gens`, 'fp-a', 2, 'fp-b', 1)
    .hset(`${base}info`, 'fp-a', info('first code', 1_000), 'fp-b', info('second code', 2_000))
    .zadd(`${base}recent`, 3_000, 'fp-a', 2_000, 'fp-b')
    .zadd(`${base}changed`, 3, 'fp-a')
    .sadd(`qrm:usage:${period}:accounts`, accountId)
    .sadd(`qrm:usage:${period}:changed`, accountId)
    .sadd('qrm:usage:periods', period)
    .hset(`qrm:scan-events:${accountId}`, 'dc_1', 4, 'dc_1|ios', 3)
    .sadd('qrm:scan-events:accounts', accountId)
    .exec();
  for (const kind of ['totals', 'gens', 'info', 'recent', 'changed']) await client.expireat(`${base}${kind}`, expireAt);
}

describe('qrm redis migrate-keys', () => {
  it(
    "keeps the month's counters, QR lists and waiting scan events of the earlier layout, added to what the new " +
      'one counted',
    async () => {
      const accountId = 'acc_migrated';
      await writeEarlierLayout(accountId);
      const meter = new RedisUsageMeter(client);
      // The new release served this account once before the migration ran.
      const at = new Date('2030-05-20T10:00:00Z');
      const qr = { fingerprint: 'fp-c', type: 'text' as const, payload: 'third code' };
      expect((await meter.reserve({ accountId, period, qr, limits: { requests: 500, qrs: 5 }, at })).ok).toBe(true);
      expect(await meter.usage(accountId, period)).toEqual({ requests: 1, qrs: 1 });

      const run = await runCli(['redis', 'migrate-keys', '--json'], { REDIS_URL: redis.url });
      expect(JSON.parse(run.stdout)).toEqual({ accountMonths: 1, scanEventAccounts: 1, endpoints: 0 });

      expect(await meter.usage(accountId, period)).toEqual({ requests: 4, qrs: 3 });
      const qrs = await meter.qrs(accountId, period, 10);
      expect(qrs.map((q) => [q.payload, q.generations])).toEqual([
        ['third code', 1],
        ['first code', 2],
        ['second code', 1],
      ]);
      expect(qrs.find((q) => q.payload === 'first code')?.firstAt).toEqual(new Date(1_000));
      // The rollup sees the account with every code, the expiry carried over, the old keys gone.
      const [snapshot] = await new RedisUsageCounters(client).changed(period, 10);
      expect(snapshot?.usage).toEqual({ requests: 4, qrs: 3 });
      expect(snapshot?.qrs.map((q) => q.payload).sort()).toEqual(['first code', 'second code', 'third code']);
      expect(await client.call('EXPIRETIME', `qrm:usage:{a:${accountId}}:${period}:gens`)).toBe(expireAt);
      expect(await client.keys(`qrm:usage:${period}:*`)).toEqual([]);
      // The scans waiting for the account's webhooks are still there for the fan-out.
      expect(await new RedisScanEventSource(client).waitingAccounts(10)).toEqual([accountId]);
      expect(await client.hgetall(`qrm:scan-events:{a:${accountId}}`)).toEqual({ dc_1: '4', 'dc_1|ios': '3' });

      // Run again: nothing left to move, nothing counted twice; then counting simply goes on.
      expect(JSON.parse((await runCli(['redis', 'migrate-keys', '--json'], { REDIS_URL: redis.url })).stdout)).toEqual({
        accountMonths: 0,
        scanEventAccounts: 0,
        endpoints: 0,
      });
      expect((await meter.reserve({ accountId, period, qr, limits: { requests: 500, qrs: 5 }, at })).ok).toBe(true);
      expect(await meter.usage(accountId, period)).toEqual({ requests: 5, qrs: 3 });
      await meter.close();
    },
    60_000,
  );
});
