// Each Lua script of Redis metering (src/adapters/redis/lua/usage-*.lua) run alone on a real redis-server.
import { describe, expect, it } from 'vitest';
import { countedKeys, refundedKeys } from '../../src/adapters/redis/usage-keys.js';
import { useLuaRedis } from './lua-redis.js';

const redis = useLuaRedis();
const ACCOUNT = 'acct_1';
const PERIOD = '2026-11';
const EXPIRE_AT = Math.floor(Date.now() / 1000) + 3_600;
const AT = 1_700_000_000_000;

/** One account-period's keys, in the order the scripts take them. */
function usageKeys() {
  const p = redis.prefix();
  return {
    totals: `${p}totals`,
    generations: `${p}gens`,
    info: `${p}info`,
    recent: `${p}recent`,
    changedQrs: `${p}changed-qrs`,
    accounts: `${p}accounts`,
    changed: `${p}changed`,
    reservation: `${p}reservation`,
    burst: `${p}burst`,
    refunded: `${p}refunded`,
  };
}
type Keys = ReturnType<typeof usageKeys>;

const reserveKeys = (k: Keys) => [...countedKeys(k), k.reservation, k.burst];
const reserveArgs = (
  o: {
    fp?: string;
    at?: number;
    requestLimit?: number | 'none';
    qrLimit?: number | 'none';
    burstLimit?: number | 'none';
    token?: string;
  } = {},
) => [
  ACCOUNT,
  PERIOD,
  o.fp ?? 'fp1',
  'url',
  'https://example.com',
  o.at ?? AT,
  o.requestLimit ?? 'none',
  o.qrLimit ?? 'none',
  EXPIRE_AT,
  60,
  o.burstLimit ?? 'none',
  1_000,
  o.token ?? 'tok1',
];
const refundKeys = (k: Keys) => [...refundedKeys(k), k.reservation];

describe('usage-reserve.lua', () => {
  it('counts a generation in every key of the period and takes a burst slot', async () => {
    const k = usageKeys();
    const c = redis.client();
    expect(await redis.run('usage-reserve', reserveKeys(k), reserveArgs({ burstLimit: 5 }))).toEqual([1, '', 1, 1, 1]);
    expect(await c.hgetall(k.totals)).toEqual({ requests: '1', version: '1' });
    expect(await c.hgetall(k.generations)).toEqual({ fp1: '1' });
    expect(JSON.parse((await c.hget(k.info, 'fp1'))!)).toEqual(['url', 'https://example.com', String(AT)]);
    expect(await c.zscore(k.recent, 'fp1')).toBe(String(AT));
    expect(await c.zscore(k.changedQrs, 'fp1')).toBe('1');
    expect(await c.smembers(k.accounts)).toEqual([ACCOUNT]);
    expect(await c.smembers(k.changed)).toEqual([ACCOUNT]);
    expect(await c.get(k.reservation)).toBe('fp1');
    expect(await c.expiretime(k.totals)).toBe(EXPIRE_AT);
    expect(await c.zrange(k.burst, 0, -1)).toEqual(['tok1']);
    expect(await c.pttl(k.burst)).toBeGreaterThan(1_000);
  });

  it('refuses past the burst, the monthly requests and the QR count, counting nothing', async () => {
    const k = usageKeys();
    const c = redis.client();
    await redis.run('usage-reserve', reserveKeys(k), reserveArgs({ burstLimit: 1 }));
    const burst = reserveArgs({ burstLimit: 1, token: 'tok2' });
    expect(await redis.run('usage-reserve', reserveKeys(k), burst)).toEqual([0, 'rate_limited', 1, 1, 1]);
    expect(await redis.run('usage-reserve', reserveKeys(k), reserveArgs({ requestLimit: 1 }))).toEqual([
      0,
      'quota_exceeded',
      1,
      1,
      0,
    ]);
    const newCode = reserveArgs({ fp: 'fp2', qrLimit: 1 });
    expect(await redis.run('usage-reserve', reserveKeys(k), newCode)).toEqual([0, 'qr_quota_exceeded', 1, 1, 0]);
    expect(await c.hgetall(k.totals)).toEqual({ requests: '1', version: '1' });
    expect(await c.hgetall(k.generations)).toEqual({ fp1: '1' });
    expect(await c.zcard(k.burst)).toBe(1);
  });
});

describe('usage-admit-burst.lua', () => {
  it('admits up to the limit within the window, and again once the window has slid past', async () => {
    const { burst } = usageKeys();
    const admit = (at: number, token: string) => redis.run('usage-admit-burst', [burst], [at, 2, 1_000, token]);
    expect(await admit(AT, 'a')).toEqual([1, 1]);
    expect(await admit(AT + 10, 'b')).toEqual([1, 2]);
    expect(await admit(AT + 20, 'c')).toEqual([0, 2]);
    expect(await admit(AT + 1_000, 'd')).toEqual([1, 2]);
    expect(await redis.client().zrange(burst, 0, -1)).toEqual(['b', 'd']);
  });
});

/** A request with no code: no fingerprint (nor type or payload), no QR limit. */
const requestArgs = (requestLimit: number | 'none') => reserveArgs({ fp: '', requestLimit, token: 'tok' });

describe('usage-reserve.lua without a code, and usage-refund-request.lua', () => {
  it('counts one request and no code, refuses past the monthly limit, and is refunded once', async () => {
    const k = usageKeys();
    const c = redis.client();
    await c.hset(k.generations, 'fp0', '3');
    expect(await redis.run('usage-reserve', reserveKeys(k), requestArgs(1))).toEqual([1, '', 1, 1, 0]);
    expect(await redis.run('usage-reserve', reserveKeys(k), requestArgs(1))).toEqual([0, 'quota_exceeded', 1, 1, 0]);
    expect(await c.hgetall(k.totals)).toEqual({ requests: '1', version: '1' });
    expect(await c.get(k.reservation)).toBe('request');
    expect(await c.smembers(k.changed)).toEqual([ACCOUNT]);
    expect(await c.hgetall(k.generations)).toEqual({ fp0: '3' });
    expect([await c.exists(k.info), await c.exists(k.recent), await c.exists(k.changedQrs)]).toEqual([0, 0, 0]);

    const refund = () =>
      redis.run('usage-refund-request', [k.totals, k.changed, k.reservation], [ACCOUNT, PERIOD, EXPIRE_AT]);
    expect(await refund()).toBe(1);
    expect(await refund()).toBe(0);
    expect(await c.hgetall(k.totals)).toEqual({ requests: '0', version: '2' });
  });

  it('does not take back a generation reservation', async () => {
    const k = usageKeys();
    await redis.run('usage-reserve', reserveKeys(k), reserveArgs());
    expect(
      await redis.run('usage-refund-request', [k.totals, k.changed, k.reservation], [ACCOUNT, PERIOD, EXPIRE_AT]),
    ).toBe(0);
    expect(await redis.client().hget(k.totals, 'requests')).toBe('1');
  });
});

describe('usage-refund.lua', () => {
  it('undoes a reservation once: the code leaves the period when it was its only generation', async () => {
    const k = usageKeys();
    const c = redis.client();
    await redis.run('usage-reserve', reserveKeys(k), reserveArgs());
    const refund = () => redis.run('usage-refund', refundKeys(k), [ACCOUNT, PERIOD, 'fp1', EXPIRE_AT]);
    expect(await refund()).toBe(1);
    expect(await refund()).toBe(0);
    expect(await c.hgetall(k.totals)).toEqual({ requests: '0', version: '2' });
    expect(await c.hlen(k.generations)).toBe(0);
    expect(await c.hlen(k.info)).toBe(0);
    expect(await c.zcard(k.recent)).toBe(0);
    expect(await c.zscore(k.changedQrs, 'fp1')).toBe('2');
  });
});

describe('usage-read.lua and usage-qrs.lua', () => {
  it('answer nil for a period Redis does not hold, then the counts and the most recent codes first', async () => {
    const k = usageKeys();
    const readKeys = [k.totals, k.generations];
    const qrsKeys = [k.totals, k.generations, k.info, k.recent];
    expect(await redis.run('usage-read', readKeys, [])).toBeNull();
    expect(await redis.run('usage-qrs', qrsKeys, [10])).toBeNull();
    await redis.run('usage-reserve', reserveKeys(k), reserveArgs({ fp: 'old', at: AT }));
    await redis.run('usage-reserve', reserveKeys(k), reserveArgs({ fp: 'new', at: AT + 5 }));
    await redis.run('usage-reserve', reserveKeys(k), reserveArgs({ fp: 'new', at: AT + 9 }));
    expect(await redis.run('usage-read', readKeys, [])).toEqual([3, 2]);
    const [fingerprint, lastAt, generations, info] = (await redis.run('usage-qrs', qrsKeys, [1])) as string[];
    expect([fingerprint, lastAt, generations]).toEqual(['new', String(AT + 9), '2']);
    expect(JSON.parse(info!)).toEqual(['url', 'https://example.com', String(AT + 5)]);
  });
});

describe('usage-snapshot.lua and usage-acknowledge.lua', () => {
  it('snapshot the changed codes, and unmark the account only when nothing changed since', async () => {
    const k = usageKeys();
    const c = redis.client();
    const snapshotKeys = [k.totals, k.generations, k.info, k.recent, k.changedQrs];
    const ackKeys = [k.totals, k.changedQrs, k.changed];
    expect(await redis.run('usage-snapshot', snapshotKeys, [100])).toBeNull();
    await redis.run('usage-reserve', reserveKeys(k), reserveArgs());
    const [requests, version, qrs, codes] = (await redis.run('usage-snapshot', snapshotKeys, [100])) as [
      string,
      string,
      number,
      string[],
    ];
    expect([requests, version, qrs]).toEqual(['1', '1', 1]);
    expect(codes.filter((_, i) => i !== 3)).toEqual(['fp1', '1', '1', String(AT)]);
    expect(JSON.parse(codes[3]!)).toEqual(['url', 'https://example.com', String(AT)]);

    await redis.run('usage-reserve', reserveKeys(k), reserveArgs({ fp: 'fp2' }));
    expect(await redis.run('usage-acknowledge', ackKeys, [ACCOUNT, '1', 'fp1', '1'])).toBe(0);
    expect(await c.zrange(k.changedQrs, 0, -1)).toEqual(['fp2']);
    expect(await c.smembers(k.changed)).toEqual([ACCOUNT]);
    expect(await redis.run('usage-acknowledge', ackKeys, [ACCOUNT, '2', 'fp2', '2'])).toBe(1);
    expect(await c.smembers(k.changed)).toEqual([]);
  });
});

const batchKeys = countedKeys;
const batchArgs = (requestLimit: number | 'none', qrLimit: number | 'none') => [
  ACCOUNT,
  PERIOD,
  AT,
  requestLimit,
  qrLimit,
  EXPIRE_AT,
  3,
  'fpA',
  2,
  'text',
  'a',
  'fpB',
  1,
  'text',
  'b',
];

describe('usage-reserve-batch.lua and usage-refund-batch-items.lua', () => {
  it('count a whole batch or nothing, and give each item back once', async () => {
    const k = usageKeys();
    const c = redis.client();
    expect(await redis.run('usage-reserve-batch', batchKeys(k), batchArgs(2, 'none'))).toEqual([
      0,
      'quota_exceeded',
      0,
      0,
      3,
      2,
    ]);
    expect(await redis.run('usage-reserve-batch', batchKeys(k), batchArgs('none', 1))).toEqual([
      0,
      'qr_quota_exceeded',
      0,
      0,
      3,
      2,
    ]);
    expect(await c.exists(k.totals)).toBe(0);
    expect(await redis.run('usage-reserve-batch', batchKeys(k), batchArgs(3, 2))).toEqual([1, '', 3, 2, 3, 2]);
    expect(await c.hgetall(k.generations)).toEqual({ fpA: '2', fpB: '1' });
    expect(JSON.parse((await c.hget(k.info, 'fpB'))!)).toEqual(['text', 'b', String(AT)]);

    const keys = [...refundedKeys(k), k.refunded];
    const refund = (...items: string[]) =>
      redis.run('usage-refund-batch-items', keys, [ACCOUNT, PERIOD, EXPIRE_AT, ...items]);
    expect(await refund('0', 'fpA', '2', 'fpB')).toBe(2);
    expect(await refund('0', 'fpA', '1', 'fpA')).toBe(1);
    expect(await c.hget(k.totals, 'requests')).toBe('0');
    expect(await c.hlen(k.generations)).toBe(0);
    expect(await c.smembers(k.refunded)).toEqual(expect.arrayContaining(['0', '1', '2']));
  });
});
