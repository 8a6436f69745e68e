// The credential cache: serves hits from memory, drops revoked keys and changed plans, and never trusts itself when it
// cannot hear invalidations.
import { describe, expect, it } from 'vitest';
import { KEY_SCOPES } from '../../src/domain/key-scope.js';
import type { Invalidation, InvalidationBus } from '../../src/domain/ports/invalidation-bus.js';
import { CachedKeyStore } from '../../src/adapters/key-store.cached.js';
import type { Credential, KeyStore } from '../../src/domain/ports/key-store.js';

/** A bus whose liveness the test controls, delivering what is published to every listener. */
class FakeBus implements InvalidationBus {
  isLive = true;
  published: Invalidation[] = [];
  readonly #listeners: Array<{ onMessage: (i: Invalidation) => void; onResync: () => void }> = [];
  async publish(invalidation: Invalidation) {
    this.published.push(invalidation);
    for (const l of this.#listeners) l.onMessage(invalidation);
  }
  listen(onMessage: (i: Invalidation) => void, onResync: () => void) {
    this.#listeners.push({ onMessage, onResync });
  }
  live() {
    return this.isLive;
  }
  resync() {
    for (const l of this.#listeners) l.onResync();
  }
  async close() {}
}

function cred(keyId: string, accountId: string, plan: string): Credential {
  return { keyId, accountId, plan, hint: 'qrm_live_…abcd', scopes: [...KEY_SCOPES], expiresAt: undefined };
}

/** A key store that counts lookups and answers from a table the test edits. */
function countingStore() {
  const table = new Map<string, Credential>([
    ['h1', cred('key_1', 'acc_1', 'free')],
    ['h2', cred('key_2', 'acc_1', 'free')],
    ['h3', cred('key_3', 'acc_2', 'pro')],
  ]);
  let lookups = 0;
  let gate: Promise<void> | undefined;
  const store: KeyStore = {
    async findActiveCredential(hash) {
      lookups++;
      const found = table.get(hash);
      await gate;
      return found;
    },
    async revoke(accountId, keyId) {
      for (const [hash, c] of table) if (c.keyId === keyId) table.delete(hash);
      return {
        id: keyId,
        accountId,
        name: 'k',
        hint: 'h',
        createdAt: new Date(0),
        lastUsedAt: undefined,
        revokedAt: new Date(1),
        scopes: [...KEY_SCOPES],
        expiresAt: undefined,
        createdBy: undefined,
      };
    },
    createWithinLimit: async () => 'limit_reached',
    list: async () => [],
    recordLastUsed: async () => {},
  };
  return { store, table, lookups: () => lookups, hold: (until: Promise<void>) => (gate = until) };
}

describe('CachedKeyStore', () => {
  it('answers repeated lookups from memory until the TTL, then asks the store again', async () => {
    const { store, lookups } = countingStore();
    let now = 0;
    const cache = new CachedKeyStore(store, new FakeBus(), { ttlMs: 1_000, now: () => now });
    for (let i = 0; i < 5; i++) expect(await cache.findActiveCredential('h1')).toMatchObject({ keyId: 'key_1' });
    expect(lookups()).toBe(1);
    now = 1_001;
    await cache.findActiveCredential('h1');
    expect(lookups()).toBe(2);
  });

  it('drops a revoked key at once, here and (through the bus) everywhere', async () => {
    const { store } = countingStore();
    const bus = new FakeBus();
    const here = new CachedKeyStore(store, bus);
    const there = new CachedKeyStore(store, bus);
    await here.findActiveCredential('h1');
    await there.findActiveCredential('h1');
    await here.revoke('acc_1', 'key_1', new Date());
    expect(bus.published).toEqual([{ keyId: 'key_1' }]);
    expect(await here.findActiveCredential('h1')).toBeUndefined();
    expect(await there.findActiveCredential('h1')).toBeUndefined();
  });

  it('drops every key of an account whose plan changed, and no other', async () => {
    const { store, table, lookups } = countingStore();
    const bus = new FakeBus();
    const cache = new CachedKeyStore(store, bus);
    for (const h of ['h1', 'h2', 'h3']) await cache.findActiveCredential(h);
    table.set('h1', cred('key_1', 'acc_1', 'pro'));
    await bus.publish({ accountId: 'acc_1' });
    expect(await cache.findActiveCredential('h1')).toMatchObject({ plan: 'pro' });
    await cache.findActiveCredential('h3');
    expect(lookups()).toBe(4);
  });

  it('bypasses the cache while it cannot hear invalidations, and forgets everything after a resync', async () => {
    const { store, lookups } = countingStore();
    const bus = new FakeBus();
    const cache = new CachedKeyStore(store, bus);
    bus.isLive = false;
    await cache.findActiveCredential('h1');
    await cache.findActiveCredential('h1');
    expect(lookups()).toBe(2);
    expect(cache.size).toBe(0);
    bus.isLive = true;
    await cache.findActiveCredential('h1');
    bus.resync();
    await cache.findActiveCredential('h1');
    expect(lookups()).toBe(4);
  });

  it('does not cache a lookup that overlapped an invalidation (it may have read the old state)', async () => {
    const { store, hold } = countingStore();
    const bus = new FakeBus();
    const cache = new CachedKeyStore(store, bus);
    let release!: () => void;
    hold(new Promise<void>((resolve) => (release = resolve)));
    const inFlight = cache.findActiveCredential('h1');
    await bus.publish({ keyId: 'key_1' });
    release();
    await inFlight;
    expect(cache.size).toBe(0);
  });

  it('holds at most maxEntries, dropping the least recently used', async () => {
    const { store, lookups } = countingStore();
    const cache = new CachedKeyStore(store, new FakeBus(), { maxEntries: 2 });
    await cache.findActiveCredential('h1');
    await cache.findActiveCredential('h2');
    await cache.findActiveCredential('h1');
    await cache.findActiveCredential('h3');
    expect(cache.size).toBe(2);
    await cache.findActiveCredential('h1');
    expect(lookups()).toBe(3);
    await cache.findActiveCredential('h2');
    expect(lookups()).toBe(4);
  });
});
