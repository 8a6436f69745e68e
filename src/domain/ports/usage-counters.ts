// Port: the hot usage counters of production mode (Redis), as seen by the jobs that copy them into the ledger.
import type { PeriodId } from '../period.js';
import type { UsageSnapshot } from './usage-ledger.js';

/**
 * Contract (test/contracts/usage-counters.contract.ts):
 * - every reservation and refund marks its account as changed in its period, until a snapshot
 *   taken after that change is acknowledged;
 * - a snapshot holds absolute values and a version that grows with every change of the account
 *   in the period;
 * - acknowledging a snapshot never hides a change made after it was taken (that account is
 *   offered again by the next `changed`);
 * - `periods` lists every period holding counters, oldest first, until it is retired; a retired
 *   period's counters are gone by `expireAt` (reads then come from the ledger).
 */
export interface UsageCounters {
  periods(): Promise<PeriodId[]>;
  /** Snapshots of up to `limit` accounts changed in the period since their last acknowledged snapshot. */
  changed(period: PeriodId, limit: number): Promise<UsageSnapshot[]>;
  /** These snapshots are in the ledger: forget the changes they cover. Pass the objects `changed` returned. */
  acknowledge(snapshots: readonly UsageSnapshot[]): Promise<void>;
  /**
   * The period is archived: stop listing it and let its counters expire at `expireAt` (never later than already set).
   */
  retire(period: PeriodId, expireAt: Date): Promise<void>;
}
