// KeyStore decorator: credentials cached per instance (bounded LRU, short TTL), dropped on every instance when revoked.
import type { ApiKeyRecord, Credential, KeyStore, NewApiKey } from '../../domain/ports/key-store.js';
import type { Invalidation, InvalidationBus } from './invalidation-bus.redis.js';

export interface CachedKeyStoreOptions {
  /** Ceiling on how long a cached credential is trusted, should an invalidation ever be missed (default 10 s). */
  ttlMs?: number;
  /** Most credentials held (default 10,000); the least recently used go first. */
  maxEntries?: number;
  now?: () => number;
}

interface Entry {
  credential: Credential;
  expiresAt: number;
}

/**
 * The API resolves a key on every request; this keeps that off the store. Revocations go through
 * `revoke`, which publishes them, so every instance drops the key within the pub/sub latency. The
 * cache is bypassed whenever this instance is not subscribed (it could miss a revocation), and a
 * lookup that overlapped an invalidation is not cached (it may have read the state before it).
 */
export class CachedKeyStore implements KeyStore {
  readonly #inner: KeyStore;
  readonly #bus: InvalidationBus;
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();
  /** Bumped by every invalidation: a lookup that saw it change while reading does not cache. */
  #epoch = 0;
  #listening = false;

  constructor(inner: KeyStore, bus: InvalidationBus, options: CachedKeyStoreOptions = {}) {
    this.#inner = inner;
    this.#bus = bus;
    this.#ttlMs = options.ttlMs ?? 10_000;
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  #invalidate(invalidation: Invalidation): void {
    if ('slug' in invalidation) return; // a dynamic code's, not a credential's
    this.#epoch++;
    for (const [hash, entry] of this.#entries) {
      const match = 'keyId' in invalidation ? entry.credential.keyId === invalidation.keyId : entry.credential.accountId === invalidation.accountId;
      if (match) this.#entries.delete(hash);
    }
  }

  #clear(): void {
    this.#epoch++;
    this.#entries.clear();
  }

  /** Subscribes to invalidations (the first lookup does it too); the cache is used once the subscription is live. */
  startListening(): void {
    if (this.#listening) return;
    this.#listening = true;
    this.#bus.listen(
      (invalidation) => this.#invalidate(invalidation),
      () => this.#clear(),
    );
  }

  async findActiveCredential(hash: string): Promise<Credential | undefined> {
    this.startListening();
    if (!this.#bus.live()) return this.#inner.findActiveCredential(hash);
    const hit = this.#entries.get(hash);
    if (hit && hit.expiresAt > this.#now()) {
      // Map order is the LRU order: a hit moves to the back.
      this.#entries.delete(hash);
      this.#entries.set(hash, hit);
      return hit.credential;
    }
    if (hit) this.#entries.delete(hash);
    const epoch = this.#epoch;
    const credential = await this.#inner.findActiveCredential(hash);
    if (credential && epoch === this.#epoch && this.#bus.live()) {
      this.#entries.set(hash, { credential, expiresAt: this.#now() + this.#ttlMs });
      if (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
    }
    return credential;
  }

  async revoke(accountId: string, keyId: string, at: Date): Promise<ApiKeyRecord | undefined> {
    const revoked = await this.#inner.revoke(accountId, keyId, at);
    if (revoked) {
      this.#invalidate({ keyId });
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
    return this.#entries.size;
  }
}
