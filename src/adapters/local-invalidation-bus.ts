// InvalidationBus within one process (the embedded default): a change made here drops cached entries here at once.
import type { Invalidation, InvalidationBus } from '../domain/ports/invalidation-bus.js';

/** Always live: nothing can be missed inside one process. Other processes' changes are left to the cache's TTL. */
export class LocalInvalidationBus implements InvalidationBus {
  readonly #listeners: Array<(invalidation: Invalidation) => void> = [];

  async publish(invalidation: Invalidation): Promise<void> {
    for (const listener of this.#listeners) listener(invalidation);
  }

  listen(onMessage: (invalidation: Invalidation) => void): void {
    this.#listeners.push(onMessage);
  }

  live(): boolean {
    return true;
  }

  async close(): Promise<void> {
    this.#listeners.length = 0;
  }
}
