// The jobs process's bucket sweeps on a real redis-server: idle, one script reads every bucket; a bucket with work is
// found.
import { describe, expect, it } from 'vitest';
import { scanEventAccountsKey } from '../../src/adapters/redis/scan-counter.redis.js';
import { RedisScanEventSource } from '../../src/adapters/redis/scan-event-source.redis.js';
import { bucketTagOf } from '../../src/adapters/redis/slot-tags.js';
import { useLuaRedis } from '../lua/lua-redis.js';

const redis = useLuaRedis();

/** Calls per command since the last CONFIG RESETSTAT, as INFO commandstats reports them. */
async function commandCalls(): Promise<Map<string, number>> {
  const info = await redis.client().info('commandstats');
  return new Map([...info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].map(([, name, calls]) => [name!, Number(calls)]));
}

describe('an idle sweep of the 16,384 slot buckets', () => {
  it(
    'is one script reading only the buckets that exist, ' + 'and still finds an account waiting in any of them',
    async () => {
      const source = new RedisScanEventSource(redis.client(), { keyPrefix: 'idle:' });
      await redis.client().config('RESETSTAT');
      expect(await source.waitingAccounts(10)).toEqual([]);
      expect(await source.busyEndpoints()).toEqual([]);
      const calls = await commandCalls();
      // Two sweeps: two scripts, and inside them an EXISTS per 256 buckets, never a set or hash read of an empty
      // bucket.
      expect(calls.get('eval')).toBe(2);
      expect(calls.get('exists')).toBe(2 * (16_384 / 256));
      expect(calls.get('srandmember')).toBeUndefined();
      expect(calls.get('hgetall')).toBeUndefined();

      const accounts = ['acc_first', 'acc_second', 'acc_third'];
      for (const accountId of accounts)
        await redis.client().sadd(scanEventAccountsKey('idle:', bucketTagOf(accountId)), accountId);
      await redis.client().config('RESETSTAT');
      expect((await source.waitingAccounts(10)).sort()).toEqual([...accounts].sort());
      // Each holding bucket is read once; only the chunks holding one are looked at key by key.
      expect((await commandCalls()).get('srandmember')).toBe(accounts.length);
      // A limit below the accounts waiting stops the read there.
      expect(await source.waitingAccounts(2)).toHaveLength(2);
    },
  );
});
