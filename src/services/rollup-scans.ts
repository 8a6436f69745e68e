// Job processor: copies changed daily scan counters (Redis) into the scan ledger as absolute values, so a replayed run
// changes nothing.
import type { ScanCounters, ScanLedger } from '../domain/ports/scan-ledger.js';

export interface RollupScansDeps {
  /** Absent in the embedded default: there the recorder writes the ledger itself. */
  scanCounters?: ScanCounters | undefined;
  scanLedger?: ScanLedger | undefined;
}

/** Bounded per run: what is left waits for the next minute. */
export async function rollupScans(
  deps: RollupScansDeps,
  options: { batchSize?: number; maxBatches?: number } = {},
): Promise<{ applied: number; drained: boolean }> {
  const { scanCounters, scanLedger } = deps;
  if (!scanCounters || !scanLedger) return { applied: 0, drained: true };
  const batchSize = options.batchSize ?? 200;
  let applied = 0;
  for (let round = 0; round < (options.maxBatches ?? 50); round++) {
    const days = await scanCounters.changed(batchSize);
    if (days.length === 0) return { applied, drained: true };
    // Acknowledged only once written: a crash in between leaves them changed, and the replay writes the same values.
    await scanLedger.apply(days);
    // A code erased between the read and the write had its old counts written back just now: the erase wins.
    for (const codeId of await scanCounters.acknowledge(days)) await scanLedger.erase(codeId);
    applied += days.length;
  }
  return { applied, drained: false };
}
