// InvalidationBus decorator whose live() asks the wrapped bus at most once per interval: for a cache allowed a bounded
// lag behind other processes' commits.
import type { Invalidation, InvalidationBus } from '../domain/ports/invalidation-bus.js';

/**
 * The embedded bus's live() reads SQLite's `PRAGMA data_version`, a cost on every signed URL hit
 * (docs/decisions/throttled-signing-key-liveness.md). Asked through this, a commit by another process (qrm revoking
 * a signing key) reaches the cache within `intervalMs`; this process's own changes are published and reach it at
 * once. A "not live" answer is held for the interval too: the cache is bypassed meanwhile.
 */
export class ThrottledLivenessBus implements InvalidationBus {
  readonly #inner: InvalidationBus;
  readonly #intervalMs: number;
  readonly #now: () => number;
  #checkedAt = -Infinity;
  #live = false;

  constructor(inner: InvalidationBus, intervalMs: number, now: () => number = () => performance.now()) {
    this.#inner = inner;
    this.#intervalMs = intervalMs;
    this.#now = now;
  }

  live(): boolean {
    const now = this.#now();
    if (now - this.#checkedAt < this.#intervalMs) return this.#live;
    this.#checkedAt = now;
    return (this.#live = this.#inner.live());
  }

  publish(invalidation: Invalidation): Promise<void> {
    return this.#inner.publish(invalidation);
  }

  listen(onMessage: (invalidation: Invalidation) => void, onResync: () => void): void {
    this.#inner.listen(onMessage, onResync);
  }

  /** The wrapped bus belongs to whoever made it: closed there. */
  async close(): Promise<void> {}
}
