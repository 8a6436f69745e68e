// Job processor: moves buffered API-key last-used times into the KeyStore. Idempotent (times only move forward).
import type { KeyStore } from '../domain/ports/key-store.js';
import type { LastUsedLog } from '../domain/ports/last-used-log.js';

export interface FlushLastUsedDeps {
  lastUsed: LastUsedLog;
  keys: Pick<KeyStore, 'recordLastUsed'>;
}

export interface FlushLastUsedOptions {
  batchSize?: number;
  /** Bounds one run; what is left waits for the next. */
  maxBatches?: number;
}

/** Returns how many keys were written. A failed write leaves the batch in the log for the next run. */
export async function flushLastUsed(
  deps: FlushLastUsedDeps,
  options: FlushLastUsedOptions = {},
): Promise<{ written: number }> {
  const batchSize = options.batchSize ?? 500;
  const maxBatches = options.maxBatches ?? 20;
  let written = 0;
  for (let round = 0; round < maxBatches; round++) {
    const batch = await deps.lastUsed.take(batchSize);
    if (batch.entries.length === 0) break;
    await deps.keys.recordLastUsed(batch.entries);
    await batch.commit();
    written += batch.entries.length;
    if (batch.entries.length < batchSize) break;
  }
  return { written };
}
