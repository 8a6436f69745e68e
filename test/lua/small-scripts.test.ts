// The guess limiter's, scan allowance's, last-used log's and session index's Lua scripts, each run alone on a real
// redis-server.
import { describe, expect, it } from 'vitest';
import { useLuaRedis } from './lua-redis.js';

const redis = useLuaRedis();

describe('guess-attempt.lua and guess-forgive.lua', () => {
  it('count guesses in a window that starts with the first one, and take one back, never below zero', async () => {
    const counter = `${redis.prefix()}guesses`;
    const attempt = () => redis.run('guess-attempt', [counter], [60_000]) as Promise<[number, number]>;
    const [first, left] = await attempt();
    expect(first).toBe(1);
    expect(left).toBeGreaterThan(59_000);
    expect((await attempt())[0]).toBe(2);
    expect(await redis.run('guess-forgive', [counter], [])).toBe(1);
    expect(await redis.client().get(counter)).toBe('1');
    await redis.run('guess-forgive', [counter], []);
    await redis.run('guess-forgive', [counter], []);
    expect(await redis.client().get(counter)).toBe('0');
    expect(await redis.client().pttl(counter)).toBeGreaterThan(0);
  });

  it('give a counter that lost its expiry a fresh window', async () => {
    const counter = `${redis.prefix()}guesses`;
    await redis.client().set(counter, '4');
    expect(await redis.run('guess-attempt', [counter], [5_000])).toEqual([5, 5_000]);
    expect(await redis.client().pttl(counter)).toBeGreaterThan(0);
  });
});

describe('scan-allowance-take.lua', () => {
  it('takes scans up to the allowance, then refuses without moving the counter', async () => {
    const counter = `${redis.prefix()}allowance`;
    const take = () => redis.run('scan-allowance-take', [counter], [2]);
    expect([await take(), await take(), await take()]).toEqual([1, 1, 0]);
    expect(await redis.client().get(counter)).toBe('2');
    expect(await redis.client().ttl(counter)).toBe(-1);
  });
});

describe('last-used-push.lua and last-used-acknowledge.lua', () => {
  it('keep the later time per key, and forget only entries still holding the time that was written', async () => {
    const log = `${redis.prefix()}last-used`;
    await redis.run('last-used-push', [log], ['k1', '200', 'k2', '100']);
    await redis.run('last-used-push', [log], ['k1', '150', 'k2', '300']);
    expect(await redis.client().hgetall(log)).toEqual({ k1: '200', k2: '300' });
    await redis.run('last-used-acknowledge', [log], ['k1', '200', 'k2', '100']);
    expect(await redis.client().hgetall(log)).toEqual({ k2: '300' });
  });
});

describe('session-index-add.lua', () => {
  it(
    'indexes a session by expiry, prunes expired ones, ' + 'and expires the index with its longest-lived session',
    async () => {
      const index = `${redis.prefix()}account-sessions`;
      const now = Date.now();
      await redis.run('session-index-add', [index], [now - 1_000, 'gone', now - 2_000]);
      await redis.run('session-index-add', [index], [now + 60_000, 's1', now]);
      await redis.run('session-index-add', [index], [now + 30_000, 's2', now]);
      expect(await redis.client().zrange(index, 0, -1)).toEqual(['s2', 's1']);
      expect(await redis.client().pexpiretime(index)).toBe(now + 60_000);
    },
  );
});
