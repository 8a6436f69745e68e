// ScanPrivacyLookup over the AccountStore: each account's setting cached per instance, dropped when the account
// changes.
import type { AccountStore } from '../domain/ports/account-store.js';
import type { ScanPrivacyLookup } from '../domain/ports/scan-privacy-lookup.js';
import { DEFAULT_SCAN_PRIVACY, type ScanPrivacy } from '../domain/scan-privacy.js';
import { InvalidatedCache, SubscribedCache, type InvalidatedCacheOptions } from './invalidated-cache.js';
import type { InvalidationBus } from '../domain/ports/invalidation-bus.js';

/**
 * Every recorded scan asks for its account's setting; this keeps that off the store. A change goes through the
 * publishing AccountStore (`{accountId}` on the bus), so every instance drops it within the pub/sub latency; the
 * cache is bypassed whenever the bus is not live, as the credential caches are.
 */
export class CachedScanPrivacy implements ScanPrivacyLookup {
  readonly #accounts: Pick<AccountStore, 'findById'>;
  readonly #cached: SubscribedCache<{ privacy: ScanPrivacy }>;

  constructor(accounts: Pick<AccountStore, 'findById'>, bus: InvalidationBus, options: InvalidatedCacheOptions = {}) {
    this.#accounts = accounts;
    this.#cached = new SubscribedCache(
      bus,
      new InvalidatedCache<{ privacy: ScanPrivacy }>({ ttlMs: 10_000, maxEntries: 100_000 }, options),
      (cache, invalidation) => {
        if ('accountId' in invalidation) cache.delete(invalidation.accountId);
      },
    );
  }

  /** This instance changed the account: its next scan reads the setting again. */
  forget(accountId: string): void {
    this.#cached.cache.delete(accountId);
  }

  async privacyOf(accountId: string): Promise<ScanPrivacy> {
    const held = await this.#cached.read(accountId, async () => {
      const account = await this.#accounts.findById(accountId);
      return { privacy: account?.scanPrivacy ?? DEFAULT_SCAN_PRIVACY };
    });
    return held?.privacy ?? DEFAULT_SCAN_PRIVACY;
  }
}

/** The uncached lookup: where another layer (Redis mode) caches, or a process that records no scans. */
export function scanPrivacyFromStore(accounts: Pick<AccountStore, 'findById'>): ScanPrivacyLookup {
  return { privacyOf: async (accountId) => (await accounts.findById(accountId))?.scanPrivacy ?? DEFAULT_SCAN_PRIVACY };
}
