// The per-instance caches' LRU: a hit moves to the back, the least recently used goes first, whatever was read last.
import { describe, expect, it } from 'vitest';
import { InvalidatedCache } from '../../src/adapters/invalidated-cache.js';

const cacheOf = (maxEntries: number) => new InvalidatedCache<string>({ ttlMs: 60_000, maxEntries }, { now: () => 0 });

describe('InvalidatedCache', () => {
  it('evicts the least recently used entry, counting reads of the newest entry and of older ones alike', () => {
    const cache = cacheOf(2);
    cache.set('a', 'A', cache.epoch);
    cache.set('b', 'B', cache.epoch);
    expect(cache.fresh('b')).toBe('B');
    expect(cache.fresh('a')).toBe('A');
    expect(cache.fresh('a')).toBe('A');
    cache.set('c', 'C', cache.epoch);
    expect([cache.fresh('a'), cache.fresh('b'), cache.fresh('c')]).toEqual(['A', undefined, 'C']);
  });

  it('keeps the order right when the entry read last is deleted and set again', () => {
    const cache = cacheOf(2);
    cache.set('a', 'A', cache.epoch);
    cache.set('b', 'B', cache.epoch);
    expect(cache.fresh('a')).toBe('A');
    cache.delete('a');
    cache.set('a', 'A2', cache.epoch);
    expect(cache.fresh('b')).toBe('B');
    cache.set('c', 'C', cache.epoch);
    expect([cache.fresh('a'), cache.fresh('b'), cache.fresh('c')]).toEqual([undefined, 'B', 'C']);
  });
});
