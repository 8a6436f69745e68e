// Job processor: closes finished months — their last changes archived in the ledger, then their hot counters retired.
import { periodOf, type PeriodId } from '../domain/period.js';
import { rollupPeriod, type RollupOptions, type RollupUsageDeps } from './rollup-usage.js';

export interface ClosePeriodDeps extends RollupUsageDeps {
  clock: () => Date;
}

export interface ClosePeriodOptions extends RollupOptions {
  /** How long a closed month's counters stay in Redis after the close, for late refunds and reads (default 3 days). */
  graceMs?: number;
}

export const CLOSE_GRACE_MS = 3 * 24 * 60 * 60 * 1000;

/**
 * Every period before the current one that still holds counters is archived and retired. Idempotent:
 * a closed period is no longer listed, so a second run finds nothing to do. A period whose changes
 * could not all be archived in this run stays open for the next.
 */
export async function closePeriod(
  deps: ClosePeriodDeps,
  options: ClosePeriodOptions = {},
): Promise<{ closed: PeriodId[]; open: PeriodId[] }> {
  const { usageCounters, usageLedger } = deps;
  if (!usageCounters || !usageLedger) return { closed: [], open: [] };
  const now = deps.clock();
  const current = periodOf(now);
  const closed: PeriodId[] = [];
  const open: PeriodId[] = [];
  for (const period of await usageCounters.periods()) {
    if (period >= current) continue;
    const { drained } = await rollupPeriod({ usageCounters, usageLedger }, period, options);
    if (!drained) {
      open.push(period);
      continue;
    }
    await usageCounters.retire(period, new Date(now.getTime() + (options.graceMs ?? CLOSE_GRACE_MS)));
    closed.push(period);
  }
  return { closed, open };
}
