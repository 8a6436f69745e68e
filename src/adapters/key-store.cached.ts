// KeyStore decorator: credentials cached per instance (bounded LRU, short TTL), dropped on every instance when revoked
// or changed by another process.
import type { ApiKeyRecord, Credential, KeyStore, NewApiKey } from '../domain/ports/key-store.js';
import { InvalidatedCache, SubscribedCache, type InvalidatedCacheOptions } from './invalidated-cache.js';
import type { InvalidationBus } from '../domain/ports/invalidation-bus.js';

/** TTL default 10 s, at most 10,000 credentials. */
export type CachedKeyStoreOptions = InvalidatedCacheOptions;

/**
 * The API resolves a key on every request; this keeps that off the store. Revocations go through
 * `revoke`, which publishes them, so every instance drops the key within the pub/sub latency. The
 * cache is bypassed whenever this instance is not subscribed (it could miss a revocation), and a
 * lookup that overlapped an invalidation is not cached (it may have read the state before it).
 */
export class CachedKeyStore implements KeyStore {
  readonly #inner: KeyStore;
  readonly #bus: InvalidationBus;
  readonly #cached: SubscribedCache<Credential>;

  constructor(inner: KeyStore, bus: InvalidationBus, options: CachedKeyStoreOptions = {}) {
    this.#inner = inner;
    this.#bus = bus;
    this.#cached = new SubscribedCache(
      bus,
      new InvalidatedCache<Credential>({ ttlMs: 10_000, maxEntries: 10_000 }, options),
      (cache, invalidation) => {
        // a dynamic code's or a signing key's, not an API key's
        if ('slug' in invalidation || 'signingKeyId' in invalidation) return;
        cache.deleteWhere((credential) =>
          'keyId' in invalidation
            ? credential.keyId === invalidation.keyId
            : credential.accountId === invalidation.accountId,
        );
      },
    );
  }

  /** Subscribes to invalidations (the first lookup does it too); the cache is used once the subscription is live. */
  startListening(): void {
    this.#cached.startListening();
  }

  async findActiveCredential(hash: string): Promise<Credential | undefined> {
    return this.#cached.read(hash, () => this.#inner.findActiveCredential(hash));
  }

  async revoke(accountId: string, keyId: string, at: Date): Promise<ApiKeyRecord | undefined> {
    const revoked = await this.#inner.revoke(accountId, keyId, at);
    if (revoked) {
      this.#cached.invalidate({ keyId });
      await this.#bus.publish({ keyId });
    }
    return revoked;
  }

  createWithinLimit(input: NewApiKey, maxActive: number): Promise<ApiKeyRecord | 'limit_reached'> {
    return this.#inner.createWithinLimit(input, maxActive);
  }

  list(accountId: string): Promise<ApiKeyRecord[]> {
    return this.#inner.list(accountId);
  }

  recordLastUsed(entries: ReadonlyArray<{ keyId: string; at: Date }>): Promise<void> {
    return this.#inner.recordLastUsed(entries);
  }

  /** How many credentials are cached (for tests and metrics). */
  get size(): number {
    return this.#cached.cache.size;
  }
}
