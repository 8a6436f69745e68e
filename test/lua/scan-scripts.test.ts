// The scan counter's, scan webhooks' and legacy layout's Lua scripts, each run alone on a real redis-server.
import { describe, expect, it } from 'vitest';
import { useLuaRedis } from './lua-redis.js';

const redis = useLuaRedis();

describe('scan-record.lua and scan-acknowledge.lua', () => {
  it(
    'count a group of scans into its splits, its salted ' +
      'visitors and the webhooks hash, then unmark the ' +
      'code-day',
    async () => {
      const p = redis.prefix();
      const keys = [`${p}changed`, `${p}event-accounts`, `${p}counts`, `${p}visitors`, `${p}salt`, `${p}events`];
      const group = {
        c: 3,
        h: 4,
        s: 5,
        e: 6,
        m: 'acct|code|2026-11-27',
        a: 'acct',
        k: 'code',
        n: 2,
        b: 1,
        d: { mobile: 2 },
        l: { en: 2 },
        r: { a: 1 },
        o: { FR: 2 },
        t: { 'FR|Paris': 1 },
        w: { '10': 2 },
        v: [
          ['visitor-1', '10'],
          ['visitor-1', '10'],
        ],
      };
      const c = redis.client();
      expect(await redis.run('scan-record', keys, [JSON.stringify([group]), 3_600, 'salt-1'])).toBe(1);
      expect(await c.hgetall(`${p}counts`)).toEqual({
        scans: '2',
        bots: '1',
        'd:mobile': '2',
        'l:en': '2',
        'r:a': '1',
        'c:FR': '2',
        't:FR|Paris': '1',
        'h:10': '2',
        'u:10': '1',
      });
      expect(await c.get(`${p}salt`)).toBe('salt-1');
      expect(await c.pfcount(`${p}visitors`)).toBe(1);
      expect(await c.ttl(`${p}counts`)).toBeGreaterThan(3_500);
      expect(await c.smembers(`${p}changed`)).toEqual([group.m]);
      expect(await c.smembers(`${p}event-accounts`)).toEqual(['acct']);
      expect(await c.hgetall(`${p}events`)).toEqual({ code: '2', 'code|mobile': '2' });

      // The same visitor on the same day is no new unique scanner; the day's salt is kept.
      await redis.run('scan-record', keys, [JSON.stringify([{ ...group, v: [['visitor-1', '11']] }]), 3_600, 'salt-2']);
      expect(await c.hget(`${p}counts`, 'u:11')).toBeNull();
      expect(await c.get(`${p}salt`)).toBe('salt-1');

      const ack = (scans: number, bots: number, generation = 0) =>
        redis.run(
          'scan-acknowledge',
          [`${p}counts`, `${p}changed`, `${p}generation`],
          [group.m, scans, bots, generation],
        );
      expect(await ack(2, 1)).toBe(1);
      expect(await c.smembers(`${p}changed`)).toEqual([group.m]);
      expect(await ack(4, 2)).toBe(1);
      expect(await c.smembers(`${p}changed`)).toEqual([]);
    },
  );
});

describe('scan-erase.lua and scan-acknowledge.lua', () => {
  it(
    "drop a code's days and their pending rollups in one step, and refuse the acknowledgement of a snapshot read " +
      'before the erase, leaving a day scanned after it marked',
    async () => {
      const p = redis.prefix();
      const c = redis.client();
      const [generation, changed] = [`${p}generation`, `${p}changed`];
      const days = ['2026-11-26', '2026-11-27'];
      for (const day of days) {
        await c.hset(`${p}counts:${day}`, 'scans', '3');
        await c.pfadd(`${p}visitors:${day}`, 'v1');
        await c.sadd(changed, `acct|code|${day}`);
      }
      await c.sadd(changed, 'acct|other|2026-11-27');
      const dayKeys = days.flatMap((day) => [`${p}counts:${day}`, `${p}visitors:${day}`]);
      const members = days.map((day) => `acct|code|${day}`);

      expect(await redis.run('scan-erase', [generation, changed, ...dayKeys], [3_600, ...members])).toBe(1);
      expect(await c.exists(...dayKeys)).toBe(0);
      expect(await c.smembers(changed)).toEqual(['acct|other|2026-11-27']);
      expect(await c.get(generation)).toBe('1');
      expect(await c.ttl(generation)).toBeGreaterThan(3_500);

      // A scan after the erase marks its day again; a snapshot read at generation 0 must not unmark it.
      await c.hset(`${p}counts:2026-11-27`, 'scans', '1');
      await c.sadd(changed, 'acct|code|2026-11-27');
      const ack = (generationRead: number) =>
        redis.run(
          'scan-acknowledge',
          [`${p}counts:2026-11-27`, changed, generation],
          ['acct|code|2026-11-27', 3, 0, generationRead],
        );
      expect(await ack(0)).toBe(0);
      expect(await c.sismember(changed, 'acct|code|2026-11-27')).toBe(1);
      expect(await ack(1)).toBe(1);
      expect(await c.sismember(changed, 'acct|code|2026-11-27')).toBe(0);
      expect(await redis.run('scan-erase', [generation, changed], [3_600])).toBe(2);
    },
  );
});

describe('scan-events-fan-out.lua, scan-events-seal.lua and scan-events-settle.lua', () => {
  it('fan an account’s scans out to each endpoint, seal them into one message, and settle it', async () => {
    const p = redis.prefix();
    const c = redis.client();
    const [accounts, account, busy] = [`${p}accounts`, `${p}account`, `${p}busy`];
    await c.hset(account, 'code', '3', 'code|mobile', '2');
    await c.sadd(accounts, 'acct');
    const fanOutKeys = [accounts, account, busy, `${p}waiting:e1`, `${p}since:e1`, `${p}waiting:e2`, `${p}since:e2`];
    expect(await redis.run('scan-events-fan-out', fanOutKeys, ['acct', '1000', 'e1', 'e2'])).toBe(2);
    expect(await c.hgetall(`${p}waiting:e2`)).toEqual({ code: '3', 'code|mobile': '2' });
    expect(await c.hgetall(busy)).toEqual({ e1: 'acct', e2: 'acct' });
    expect(await c.get(`${p}since:e1`)).toBe('1000');
    expect([await c.exists(account), await c.sismember(accounts, 'acct')]).toEqual([0, 0]);

    const sealKeys = [`${p}message:e1`, `${p}sealed:e1`, `${p}waiting:e1`, `${p}since:e1`, busy];
    const [message, sealed] = (await redis.run('scan-events-seal', sealKeys, ['e1', 'm1', '2000'])) as string[][];
    expect(message).toEqual(['id', 'm1', 'from', '1000', 'to', '2000', 'attempts', '0', 'nextAt', '2000']);
    expect(sealed).toEqual(['code', '3', 'code|mobile', '2']);
    expect(await c.exists(`${p}waiting:e1`)).toBe(0);
    // A message already out is answered again, not replaced.
    expect(((await redis.run('scan-events-seal', sealKeys, ['e1', 'm2', '3000'])) as string[][])[0]![1]).toBe('m1');

    const settleKeys = [`${p}message:e1`, `${p}sealed:e1`];
    expect(await redis.run('scan-events-settle', settleKeys, ['m-other', ''])).toBe(0);
    expect(await redis.run('scan-events-settle', settleKeys, ['m1', '5000'])).toBe(1);
    expect(await c.hmget(`${p}message:e1`, 'attempts', 'nextAt')).toEqual(['1', '5000']);
    expect(await redis.run('scan-events-settle', settleKeys, ['m1', ''])).toBe(1);
    expect(await c.exists(`${p}message:e1`, `${p}sealed:e1`)).toBe(0);

    // Nothing waiting: the endpoint is forgotten.
    expect(await redis.run('scan-events-seal', sealKeys, ['e1', 'm3', '6000'])).toBeNull();
    expect(await c.hgetall(busy)).toEqual({ e2: 'acct' });
    expect(await c.exists(`${p}since:e1`)).toBe(0);
  });
});

describe('legacy-merge-counts.lua and legacy-merge-usage.lua', () => {
  it('add one account’s waiting scan events from the old key to the new one', async () => {
    const p = redis.prefix();
    const c = redis.client();
    await c.hset(`${p}old`, 'code', '2');
    await c.hset(`${p}new`, 'code', '1');
    expect(await redis.run('legacy-merge-counts', [`${p}old`, `${p}new`, `${p}bucket`], ['acct'])).toBe(1);
    expect(await c.hgetall(`${p}new`)).toEqual({ code: '3' });
    expect(await c.smembers(`${p}bucket`)).toEqual(['acct']);
    expect(await c.exists(`${p}old`)).toBe(0);
  });

  it(
    'move an account-month into the new layout: counts ' +
      'added, codes marked changed, expiry carried, old keys ' +
      'gone',
    async () => {
      const p = redis.prefix();
      const c = redis.client();
      const old = ['totals', 'gens', 'info', 'recent', 'changed'].map((kind) => `${p}old:${kind}`);
      const now = ['totals', 'gens', 'info', 'recent', 'changed-qrs', 'accounts', 'changed', 'periods'].map(
        (kind) => `${p}new:${kind}`,
      );
      const expireAt = Date.now() + 3_600_000;
      await c.hset(old[0]!, 'requests', '2', 'version', '5');
      await c.pexpireat(old[0]!, expireAt);
      await c.hset(old[1]!, 'fp', '2');
      await c.hset(old[2]!, 'fp', '["url","x","100"]');
      await c.zadd(old[3]!, 100, 'fp');
      await c.zadd(old[4]!, 1, 'fp2');
      await c.hset(now[0]!, 'requests', '1');
      await c.zadd(now[3]!, 200, 'fp');

      expect(await redis.run('legacy-merge-usage', [...old, ...now], ['acct', '2026-11'])).toBe(1);
      expect(await c.hgetall(now[0]!)).toEqual({ requests: '3', version: '6' });
      expect(await c.hgetall(now[1]!)).toEqual({ fp: '2' });
      expect(await c.hget(now[2]!, 'fp')).toBe('["url","x","100"]');
      expect(await c.zscore(now[3]!, 'fp')).toBe('200');
      expect(await c.zrange(now[4]!, 0, -1, 'WITHSCORES')).toEqual(['fp', '6', 'fp2', '6']);
      expect([await c.smembers(now[5]!), await c.smembers(now[6]!), await c.smembers(now[7]!)]).toEqual([
        ['acct'],
        ['acct'],
        ['2026-11'],
      ]);
      expect(await c.pexpiretime(now[0]!)).toBe(expireAt);
      expect(await c.exists(...old)).toBe(0);
      expect(await redis.run('legacy-merge-usage', [...old, ...now], ['acct', '2026-11'])).toBe(0);
    },
  );
});

describe('slot-read-non-empty.lua', () => {
  it('reads only the bucket keys that exist, up to the member count in all, or each whole hash', async () => {
    const p = redis.prefix();
    const c = redis.client();
    const buckets = Array.from({ length: 600 }, (_, i) => `${p}bucket:${i}`);
    await c.sadd(buckets[5]!, 'a1', 'a2');
    await c.sadd(buckets[400]!, 'a3');
    await c.hset(`${p}hash:7`, 'e1', 'acct');
    for (const chunk of ['256', '1']) {
      const found = (await redis.run(
        'slot-read-non-empty',
        [buckets[0]!],
        ['members', '10', chunk, ...buckets],
      )) as Array<number | string[]>;
      expect(found.filter((_, i) => i % 2 === 0)).toEqual([6, 401]);
      expect([...(found[1] as string[])].sort()).toEqual(['a1', 'a2']);
      expect(found[3]).toEqual(['a3']);
      const capped = (await redis.run(
        'slot-read-non-empty',
        [buckets[0]!],
        ['members', '2', chunk, ...buckets],
      )) as unknown[];
      expect(capped).toHaveLength(2);
    }
    const hashes = Array.from({ length: 10 }, (_, i) => `${p}hash:${i}`);
    expect(await redis.run('slot-read-non-empty', [hashes[0]!], ['hash', '0', '256', ...hashes])).toEqual([
      8,
      ['e1', 'acct'],
    ]);
  });
});
