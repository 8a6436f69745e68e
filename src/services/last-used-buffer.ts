// Buffers API-key last-used times in memory and writes them in batches, off the request path.
import type { KeyStore } from '../domain/ports/key-store.js';

export class LastUsedBuffer {
  readonly #keys: KeyStore;
  #pending = new Map<string, Date>();

  constructor(keys: KeyStore) {
    this.#keys = keys;
  }

  record(keyId: string, at: Date): void {
    this.#pending.set(keyId, at);
  }

  /** Writes what has accumulated; safe to call concurrently with record(). */
  async flush(): Promise<number> {
    if (this.#pending.size === 0) return 0;
    const batch = this.#pending;
    this.#pending = new Map();
    await this.#keys.recordLastUsed([...batch].map(([keyId, at]) => ({ keyId, at })));
    return batch.size;
  }
}
