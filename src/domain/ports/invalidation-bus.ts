// Port: cache invalidations broadcast to every process sharing the stores (revocations, plan changes, dynamic codes).

/**
 * Drop one key, every key of an account (its plan changed), a dynamic code's slug (its target or status changed), or a
 * revoked signing key.
 */
export type Invalidation = { keyId: string } | { accountId: string } | { slug: string } | { signingKeyId: string };

/**
 * A broadcast channel between the processes that share stores: what one changes, the caches of every other drop.
 * Adapters: Redis pub/sub; for the embedded default, SQLite (other processes' commits to the same file) and in process.
 */
export interface InvalidationBus {
  publish(invalidation: Invalidation): Promise<void>;
  /**
   * Adds a listener (the subscription starts with the first). `onResync` runs whenever messages may
   * have been missed (a lost connection, a new subscription): the listener must forget what it cached.
   */
  listen(onMessage: (invalidation: Invalidation) => void, onResync: () => void): void;
  /** True only while the subscription is confirmed and connected: otherwise a cache cannot trust what it holds. */
  live(): boolean;
  close(): Promise<void>;
}
