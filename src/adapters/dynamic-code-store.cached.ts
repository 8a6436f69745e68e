// DynamicCodeStore decorator: slug → target cached per instance (bounded LRU), dropped on every instance when a code
// changes.
import type { Vanity } from '../domain/custom-domain.js';
import type { DynamicCode, SlugTarget } from '../domain/dynamic-code.js';
import type {
  CodeChanges,
  CodeCreation,
  CodesCreation,
  CodeUpdate,
  CodeQuery,
  DynamicCodeStore,
  NewDynamicCode,
} from '../domain/ports/dynamic-code-store.js';
import { InvalidatedCache, type InvalidatedCacheOptions } from './invalidated-cache.js';
import type { Invalidation, InvalidationBus } from '../domain/ports/invalidation-bus.js';

/** A vanity slug's cache key: `<hostname>/<slug>` (a random slug has no `/`, so the two never collide). */
const vanityKey = (vanity: Pick<Vanity, 'hostname' | 'slug'>) => `${vanity.hostname}/${vanity.slug}`;

/** TTL default 60 s, at most 100,000 slugs. */
export type CachedDynamicCodeStoreOptions = InvalidatedCacheOptions;

/**
 * The redirect resolves a slug on every scan; this keeps that off the system of record. Every change
 * (target, status, delete, operator disable) goes through this store, which drops the slug here and
 * publishes it, so every instance follows within the pub/sub latency. While this instance is not
 * subscribed (Redis down) it reads the system of record instead, and only if that fails too does it
 * answer from what it cached, however old: a printed code keeps working through a Redis outage.
 */
export class CachedDynamicCodeStore implements DynamicCodeStore {
  readonly #inner: DynamicCodeStore;
  readonly #bus: InvalidationBus;
  readonly #cache: InvalidatedCache<SlugTarget>;
  #listening = false;

  constructor(inner: DynamicCodeStore, bus: InvalidationBus, options: CachedDynamicCodeStoreOptions = {}) {
    this.#inner = inner;
    this.#bus = bus;
    this.#cache = new InvalidatedCache({ ttlMs: 60_000, maxEntries: 100_000 }, options);
  }

  #invalidate(invalidation: Invalidation): void {
    if ('slug' in invalidation) this.#cache.delete(invalidation.slug);
  }

  startListening(): void {
    if (this.#listening) return;
    this.#listening = true;
    this.#bus.listen(
      (invalidation) => this.#invalidate(invalidation),
      // Messages may have been missed: nothing cached is fresh any more, but it stays as the last resort.
      () => this.#cache.expireAll(),
    );
  }

  findBySlug(slug: string): Promise<SlugTarget | undefined> {
    return this.#cachedLookUp(slug, () => this.#inner.findBySlug(slug));
  }

  findByVanity(hostname: string, slug: string): Promise<SlugTarget | undefined> {
    return this.#cachedLookUp(vanityKey({ hostname, slug }), () => this.#inner.findByVanity(hostname, slug));
  }

  async #cachedLookUp(slug: string, lookUp: () => Promise<SlugTarget | undefined>): Promise<SlugTarget | undefined> {
    this.startListening();
    const live = this.#bus.live();
    const hit = live ? this.#cache.fresh(slug) : undefined;
    if (hit) return hit;
    const epoch = this.#cache.epoch;
    let target: SlugTarget | undefined;
    try {
      target = await lookUp();
    } catch (error) {
      const stale = this.#cache.stale(slug);
      if (stale) return stale;
      throw error;
    }
    // Cached only while subscribed: what is cached then is either fresh or, after a lost subscription, the last resort.
    if (target && live && this.#bus.live()) this.#cache.set(slug, target, epoch);
    return target;
  }

  async #changed(slug: string): Promise<void> {
    this.#invalidate({ slug });
    await this.#bus.publish({ slug });
  }

  /**
   * Every key a scan may have cached the code under: its random slug, and its vanity slug before and after the change.
   */
  async #changedCode(code: DynamicCode, before: DynamicCode | undefined): Promise<void> {
    await this.#changed(code.slug);
    for (const vanity of new Set([code.vanity, before?.vanity].flatMap((v) => (v ? [vanityKey(v)] : []))))
      await this.#changed(vanity);
  }

  async update(accountId: string, id: string, changes: CodeChanges, at: Date): Promise<CodeUpdate> {
    const before = changes.vanity === undefined ? undefined : await this.#inner.get(accountId, id);
    const updated = await this.#inner.update(accountId, id, changes, at);
    if (updated && updated !== 'disabled' && updated !== 'vanity_taken') await this.#changedCode(updated, before);
    return updated;
  }

  async remove(accountId: string, id: string, at: Date): Promise<boolean> {
    const code = await this.#inner.get(accountId, id);
    const removed = await this.#inner.remove(accountId, id, at);
    if (removed && code) await this.#changedCode(code, undefined);
    return removed;
  }

  async disableBySlug(slug: string, reason: string, at: Date): Promise<DynamicCode | undefined> {
    const disabled = await this.#inner.disableBySlug(slug, reason, at);
    if (disabled) await this.#changedCode(disabled, undefined);
    return disabled;
  }

  createWithinLimit(input: NewDynamicCode, maxCodes: number): Promise<CodeCreation> {
    return this.#inner.createWithinLimit(input, maxCodes);
  }

  createManyWithinLimit(inputs: readonly NewDynamicCode[], maxCodes: number): Promise<CodesCreation> {
    return this.#inner.createManyWithinLimit(inputs, maxCodes);
  }

  codesById(afterId: string | undefined, limit: number): Promise<Array<{ id: string; accountId: string }>> {
    return this.#inner.codesById(afterId, limit);
  }

  countOnDomain(domainId: string): Promise<number> {
    return this.#inner.countOnDomain(domainId);
  }

  list(accountId: string, query: CodeQuery): Promise<DynamicCode[]> {
    return this.#inner.list(accountId, query);
  }

  count(accountId: string): Promise<number> {
    return this.#inner.count(accountId);
  }

  get(accountId: string, id: string): Promise<DynamicCode | undefined> {
    return this.#inner.get(accountId, id);
  }

  /** How many slugs are cached (for tests). */
  get size(): number {
    return this.#cache.size;
  }
}
