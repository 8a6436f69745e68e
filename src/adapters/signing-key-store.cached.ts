// SigningKeyStore decorator: active signing keys cached per instance, dropped on every instance when revoked (or the
// account's plan changes) over the invalidation bus.
import type {
  NewSigningKey,
  SigningCredential,
  SigningKeyRecord,
  SigningKeyStore,
} from '../domain/ports/signing-key-store.js';
import { InvalidatedCache, SubscribedCache, type InvalidatedCacheOptions } from './invalidated-cache.js';
import type { InvalidationBus } from '../domain/ports/invalidation-bus.js';

/**
 * Every hit on a signed URL resolves its key; this keeps that off the store. As the API keys' cache: a revocation
 * is published, so every instance drops the key within the pub/sub latency; the cache is bypassed whenever this
 * instance is not subscribed, and a lookup that overlapped an invalidation is not cached.
 */
export class CachedSigningKeyStore implements SigningKeyStore {
  readonly #inner: SigningKeyStore;
  readonly #bus: InvalidationBus;
  readonly #cached: SubscribedCache<SigningCredential>;

  constructor(inner: SigningKeyStore, bus: InvalidationBus, options: InvalidatedCacheOptions = {}) {
    this.#inner = inner;
    this.#bus = bus;
    this.#cached = new SubscribedCache(
      bus,
      new InvalidatedCache<SigningCredential>({ ttlMs: 10_000, maxEntries: 10_000 }, options),
      (cache, invalidation) => {
        if ('signingKeyId' in invalidation) cache.delete(invalidation.signingKeyId);
        else if ('accountId' in invalidation)
          cache.deleteWhere((credential) => credential.accountId === invalidation.accountId);
      },
    );
  }

  startListening(): void {
    this.#cached.startListening();
  }

  async findActive(keyId: string): Promise<SigningCredential | undefined> {
    return this.#cached.read(keyId, () => this.#inner.findActive(keyId));
  }

  async revoke(accountId: string, keyId: string, at: Date): Promise<SigningKeyRecord | undefined> {
    const revoked = await this.#inner.revoke(accountId, keyId, at);
    if (revoked) {
      this.#cached.invalidate({ signingKeyId: keyId });
      await this.#bus.publish({ signingKeyId: keyId });
    }
    return revoked;
  }

  createWithinLimit(input: NewSigningKey, maxActive: number): Promise<SigningKeyRecord | 'limit_reached'> {
    return this.#inner.createWithinLimit(input, maxActive);
  }

  list(accountId: string): Promise<SigningKeyRecord[]> {
    return this.#inner.list(accountId);
  }
}
