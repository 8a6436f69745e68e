// A bounded LRU with a TTL and an invalidation epoch: what the per-instance caches (credentials, slugs) share.
import type { Invalidation, InvalidationBus } from '../domain/ports/invalidation-bus.js';

export interface InvalidatedCacheOptions {
  /** Ceiling on how long an entry is trusted, should an invalidation ever be missed. */
  ttlMs?: number;
  /** Most entries held; the least recently used go first. */
  maxEntries?: number;
  now?: () => number;
}

interface Entry<V> {
  value: V;
  expiresAt: number;
}

/**
 * Reads take the `epoch` before going to the source and hand it back to `set`: if any invalidation
 * happened in between, the value may predate it and is not cached.
 */
export class InvalidatedCache<V> {
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry<V>>();
  /** The key set or read last: while held, it is already the back of the LRU. */
  #newest: string | undefined;
  #epoch = 0;

  constructor(defaults: { ttlMs: number; maxEntries: number }, options: InvalidatedCacheOptions = {}) {
    this.#ttlMs = options.ttlMs ?? defaults.ttlMs;
    this.#maxEntries = options.maxEntries ?? defaults.maxEntries;
    this.#now = options.now ?? Date.now;
  }

  get epoch(): number {
    return this.#epoch;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The value if it is still within its TTL (moved to the back of the LRU), else undefined. */
  fresh(key: string): V | undefined {
    const hit = this.#entries.get(key);
    if (!hit || hit.expiresAt <= this.#now()) return undefined;
    // Map order is the LRU order: a hit moves to the back, unless it is there already (a hot code read again).
    if (key !== this.#newest) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      this.#newest = key;
    }
    return hit.value;
  }

  /** Whatever is held, however old: the last resort when the source itself fails. */
  stale(key: string): V | undefined {
    return this.#entries.get(key)?.value;
  }

  set(key: string, value: V, epoch: number): void {
    if (epoch !== this.#epoch) return;
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt: this.#now() + this.#ttlMs });
    this.#newest = key;
    if (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
  }

  delete(key: string): void {
    this.#epoch++;
    this.#entries.delete(key);
  }

  deleteWhere(matches: (value: V) => boolean): void {
    this.#epoch++;
    for (const [key, entry] of this.#entries) if (matches(entry.value)) this.#entries.delete(key);
  }

  clear(): void {
    this.#epoch++;
    this.#entries.clear();
  }

  /** Nothing held is fresh any more, but it stays available to `stale`. */
  expireAll(): void {
    this.#epoch++;
    for (const entry of this.#entries.values()) entry.expiresAt = 0;
  }
}

/**
 * A read through the cache of a per-instance store decorator: the cache is trusted only while the bus is live (this
 * instance hears every invalidation), and a value read from the source is kept only when it exists, the bus is
 * still live and no invalidation overlapped the read.
 */
export async function readThrough<V>(
  cache: InvalidatedCache<V>,
  bus: { live(): boolean },
  key: string,
  load: () => Promise<V | undefined>,
): Promise<V | undefined> {
  if (!bus.live()) return load();
  const hit = cache.fresh(key);
  if (hit) return hit;
  const epoch = cache.epoch;
  const value = await load();
  if (value && bus.live()) cache.set(key, value, epoch);
  return value;
}

/**
 * An InvalidatedCache kept in step with the invalidation bus, as the per-instance store decorators use it: subscribed
 * on the first read (or `startListening`), each invalidation handed to `drop`, everything cleared when the
 * subscription is lost.
 */
export class SubscribedCache<V> {
  readonly cache: InvalidatedCache<V>;
  readonly #bus: InvalidationBus;
  readonly #drop: (cache: InvalidatedCache<V>, invalidation: Invalidation) => void;
  #listening = false;

  constructor(
    bus: InvalidationBus,
    cache: InvalidatedCache<V>,
    drop: (cache: InvalidatedCache<V>, invalidation: Invalidation) => void,
  ) {
    this.#bus = bus;
    this.cache = cache;
    this.#drop = drop;
  }

  startListening(): void {
    if (this.#listening) return;
    this.#listening = true;
    this.#bus.listen(
      (invalidation) => this.invalidate(invalidation),
      () => this.cache.clear(),
    );
  }

  /** Drops what `invalidation` names here (this instance made the change; the bus tells the others). */
  invalidate(invalidation: Invalidation): void {
    this.#drop(this.cache, invalidation);
  }

  read(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    this.startListening();
    return readThrough(this.cache, this.#bus, key, load);
  }
}
