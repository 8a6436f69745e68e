// Job processor: copies changed usage counters into the ledger as absolute values, so a replayed run changes nothing.
import type { PeriodId } from '../domain/period.js';
import type { UsageCounters } from '../domain/ports/usage-counters.js';
import type { UsageLedger } from '../domain/ports/usage-ledger.js';

export interface RollupUsageDeps {
  /** Absent in the embedded default: there the meter writes the system of record itself. */
  usageCounters?: UsageCounters | undefined;
  usageLedger?: UsageLedger | undefined;
}

export interface RollupOptions {
  batchSize?: number;
  /** Bounds one run per period; what is left waits for the next run. */
  maxBatches?: number;
}

export interface RollupResult {
  /** Snapshots written to the ledger. */
  applied: number;
  /** True when every change seen was written (nothing left for the next run). */
  drained: boolean;
}

/** Rolls up one period until no change is left or the batch bound is reached. */
export async function rollupPeriod(
  deps: { usageCounters: UsageCounters; usageLedger: UsageLedger },
  period: PeriodId,
  options: RollupOptions = {},
): Promise<RollupResult> {
  const batchSize = options.batchSize ?? 200;
  const maxBatches = options.maxBatches ?? 50;
  let applied = 0;
  for (let round = 0; round < maxBatches; round++) {
    const snapshots = await deps.usageCounters.changed(period, batchSize);
    if (snapshots.length === 0) return { applied, drained: true };
    // Acknowledged only once written: a crash in between leaves the changes marked, and the replay rewrites the same
    // values.
    for (const snapshot of snapshots) await deps.usageLedger.apply(snapshot);
    await deps.usageCounters.acknowledge(snapshots);
    applied += snapshots.length;
  }
  return { applied, drained: false };
}

export async function rollupUsage(deps: RollupUsageDeps, options: RollupOptions = {}): Promise<RollupResult> {
  const { usageCounters, usageLedger } = deps;
  if (!usageCounters || !usageLedger) return { applied: 0, drained: true };
  let applied = 0;
  let drained = true;
  for (const period of await usageCounters.periods()) {
    const result = await rollupPeriod({ usageCounters, usageLedger }, period, options);
    applied += result.applied;
    drained &&= result.drained;
  }
  return { applied, drained };
}
