// A reservation whose answer was lost, or a refund Redis could not take, is settled once Redis answers: no failed
// request is billed.
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../../src/adapters/redis/connection.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeRedisClient, createRedisClient, settleConnection } from '../../src/adapters/redis/connection.js';
import { RedisUsageMeter } from '../../src/adapters/redis/usage-meter.redis.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';

let redis: RedisServer;
const clients: RedisClient[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
});
afterEach(async () => {
  for (const client of clients.splice(0)) await closeRedisClient(client);
});
afterAll(async () => {
  await redis?.destroy();
});

async function client(commandTimeoutMs?: number): Promise<RedisClient> {
  const made = createRedisClient(redis.url, {
    name: 'deferred-refunds',
    ...(commandTimeoutMs ? { commandTimeoutMs } : {}),
  });
  clients.push(made);
  await settleConnection(made);
  return made;
}

const period = '2026-11';
const at = new Date('2026-11-15T12:00:00Z');
const qr = { fingerprint: 'fp-1', type: 'text' as const, payload: 'payload 1' };
const limits = { requests: 10, qrs: 5 };

describe('RedisUsageMeter when Redis fails mid-request', () => {
  it('takes back a reservation that ran in Redis although its answer never arrived', async () => {
    const meter = new RedisUsageMeter(await client(50), { keyPrefix: `t-${randomUUID()}:` });
    const blocker = await client();
    // Redis holds every write command until told otherwise: the reservation waits in Redis, and the client gives up
    // after 50 ms.
    await blocker.call('CLIENT', 'PAUSE', '60000', 'WRITE');
    const accountId = `acc_${randomUUID()}`;
    try {
      await expect(meter.reserve({ accountId, period, qr, limits, at })).rejects.toThrow(/timed out/);
    } finally {
      await blocker.call('CLIENT', 'UNPAUSE');
    }
    // Redis did run the script once it was free...
    await waitFor('the deferred refund to be applied', async () => (await meter.settleDeferredRefunds()) === 0);
    // ...and the deferred refund took it back.
    expect(await meter.usage(accountId, period)).toEqual({ requests: 0, qrs: 0 });
    await meter.close();
  });

  it('applies a refund made while Redis was down once it is back, exactly once', async () => {
    const meter = new RedisUsageMeter(await client(), { keyPrefix: `t-${randomUUID()}:` });
    const accountId = `acc_${randomUUID()}`;
    const first = await meter.reserve({ accountId, period, qr, limits, at });
    const second = await meter.reserve({ accountId, period, qr, limits, at });
    if (!first.ok || !second.ok) throw new Error('reservations should succeed');
    await redis.stop();
    await meter.refund(second.reservation); // resolves: the refund waits for Redis instead of failing the request
    await meter.refund(second.reservation); // a second refund of the same reservation changes nothing
    await redis.start();
    await waitFor('the deferred refund to be applied', async () => (await meter.settleDeferredRefunds()) === 0, {
      timeoutMs: 10_000,
      intervalMs: 100,
    });
    await meter.refund(second.reservation);
    expect(await meter.usage(accountId, period)).toEqual({ requests: 1, qrs: 1 });
    await meter.close();
  }, 30_000);
});
