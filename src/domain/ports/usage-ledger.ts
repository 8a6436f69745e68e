// Port: the system of record for metered usage in production mode, fed by the rollup as absolute values.
import type { PeriodId } from '../period.js';
import type { QrRecord, Usage } from './usage-meter.js';

/** One account's usage in one period at one moment, as absolute values (never increments). */
export interface UsageSnapshot {
  accountId: string;
  period: PeriodId;
  /** Grows with every change of the account in the period: the newer snapshot always wins. */
  version: number;
  usage: Usage;
  /** Codes whose record changed since the last acknowledged snapshot, as they are now. */
  qrs: QrRecord[];
  /** Codes whose every generation was refunded since then: no longer counted in the period. */
  removed: string[];
}

/**
 * Contract (test/contracts/usage-ledger.contract.ts):
 * - `apply` is idempotent and order-insensitive: applying snapshots any number of times, in any
 *   order, leaves the values of the highest version (a replayed rollup changes nothing);
 * - `qrs` never lists a removed code; a code counted again after removal is listed again;
 * - `usage` is undefined for an account and period no snapshot was applied for.
 */
export interface UsageLedger {
  apply(snapshot: UsageSnapshot): Promise<void>;
  usage(accountId: string, period: PeriodId): Promise<Usage | undefined>;
  /** The account's codes in the period, most recently generated first. */
  qrs(accountId: string, period: PeriodId, limit: number): Promise<QrRecord[]>;
}
