// LogoStore decorator: keeps recently used logos in memory, so a branded render with a known logo skips the store.
import { LRUCache } from 'lru-cache';
import type { LogoRecord, LogoStore, NewLogo, StoredLogo } from '../domain/ports/logo-store.js';

export interface CachedLogoStoreOptions {
  maxBytes?: number;
  /** How long another instance may still draw a logo deleted elsewhere (this instance forgets it at once). */
  ttlMs?: number;
}

export class CachedLogoStore implements LogoStore {
  readonly #inner: LogoStore;
  readonly #cache: LRUCache<string, StoredLogo>;

  constructor(inner: LogoStore, options: CachedLogoStoreOptions = {}) {
    this.#inner = inner;
    this.#cache = new LRUCache({
      maxSize: options.maxBytes ?? 32 * 1024 * 1024,
      sizeCalculation: (logo) => Math.max(1, logo.png.byteLength),
      ttl: options.ttlMs ?? 30_000,
    });
  }

  createWithinLimit(input: NewLogo, maxLogos: number | null): Promise<LogoRecord | 'limit_reached'> {
    return this.#inner.createWithinLimit(input, maxLogos);
  }

  list(accountId: string): Promise<LogoRecord[]> {
    return this.#inner.list(accountId);
  }

  // Keyed by account and id together: the cache can never hand one tenant's logo to another.
  async get(accountId: string, id: string): Promise<StoredLogo | undefined> {
    const key = `${accountId}\u0000${id}`;
    const cached = this.#cache.get(key);
    if (cached) return cached;
    const logo = await this.#inner.get(accountId, id);
    if (logo) this.#cache.set(key, logo);
    return logo;
  }

  // The name is not drawn, but a cached copy must not answer with the old one.
  async rename(accountId: string, id: string, name: string): Promise<LogoRecord | undefined> {
    this.#cache.delete(`${accountId}\u0000${id}`);
    return this.#inner.rename(accountId, id, name);
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    this.#cache.delete(`${accountId}\u0000${id}`);
    return this.#inner.delete(accountId, id);
  }
}
