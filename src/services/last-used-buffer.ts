// LastUsedLog in process memory: the embedded default, where the API and its jobs share one process.
import type { LastUsedBatch, LastUsedEntry, LastUsedLog } from '../domain/ports/last-used-log.js';

export class LastUsedBuffer implements LastUsedLog {
  readonly #pending = new Map<string, number>();

  record(keyId: string, at: Date): void {
    const time = at.getTime();
    if ((this.#pending.get(keyId) ?? Number.NEGATIVE_INFINITY) < time) this.#pending.set(keyId, time);
  }

  async take(limit: number): Promise<LastUsedBatch> {
    const entries: LastUsedEntry[] = [];
    for (const [keyId, time] of this.#pending) {
      if (entries.length >= limit) break;
      entries.push({ keyId, at: new Date(time) });
    }
    return {
      entries,
      commit: async () => {
        // A key used again while the batch was being written keeps its newer time.
        for (const { keyId, at } of entries) if (this.#pending.get(keyId) === at.getTime()) this.#pending.delete(keyId);
      },
    };
  }
}
