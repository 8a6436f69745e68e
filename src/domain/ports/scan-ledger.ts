// Ports: where scans are recorded on the redirect's hot path, and the system of record of daily scan counts.
import type { Scan, ScanDay } from '../scan.js';

/**
 * The redirect hands each scan here after its answer is sent.
 * Contract (test/contracts/scan-ledger.contract.ts): `record` never throws and never waits for storage;
 * once `flush` resolves, every scan recorded before it is counted exactly once (or, if storage failed,
 * counted by `unrecorded` — never silently dropped).
 */
/**
 * How long a recorder may hold a scan before it goes to storage: a few milliseconds gather a busy redirect's scans into
 * one write (a SQLite transaction, a Redis script call) whose fixed cost then falls on many scans. `flush` and
 * `close` send what waits at once.
 */
export const SCAN_GATHER_MS = 5;

export interface ScanRecorder {
  record(scan: Scan): void;
  /** Scans answered but not stored since start (storage down or full): the unrecorded-scans metric. */
  unrecorded(): number;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Daily scan counts per code, as absolute values: applying the same snapshot twice changes nothing
 * (the production rollup may replay).
 */
export interface ScanLedger {
  apply(days: readonly ScanDay[]): Promise<void>;
  /** Days in [fromDay, toDay] (`YYYY-MM-DD`) with at least one scan, oldest first. */
  days(codeId: string, fromDay: string, toDay: string): Promise<ScanDay[]>;
  /** Each code's scans on `fromDay` and after; codes without any are absent. One read for a page of codes. */
  scansSince(codeIds: readonly string[], fromDay: string): Promise<Map<string, number>>;
  /**
   * The days in [fromDay, toDay] with at least one scan of any of these codes, in no set order. One read for a page of
   * codes.
   */
  daysOfCodes(codeIds: readonly string[], fromDay: string, toDay: string): Promise<ScanDay[]>;
  /**
   * Erases the code's scan data: every day (counts and splits) and the visitor digests kept for its uniques; the
   * code's all-time count, the sum of its days, is zero after it.
   */
  erase(codeId: string): Promise<void>;
  /**
   * Reduces the days of these codes before `beforeDay` to their scan and bot totals: uniques, device, language, arm,
   * country, city and hour counts go. The totals (and so each code's all-time count) stay. Answers how many days
   * lost detail; a day already reduced is not counted again.
   */
  keepTotalsBefore(codeIds: readonly string[], beforeDay: string): Promise<number>;
}

/** Production mode: the hot scan counters (Redis) the rollup job copies into the ledger. */
export interface ScanCounters {
  /** Up to `limit` code-days changed since they were last acknowledged. */
  changed(limit: number): Promise<ScanDay[]>;
  /**
   * Marks snapshots as written; a code-day scanned again since its snapshot stays changed. Answers the codes erased
   * since their snapshots were read: none of their code-days is marked, and what those snapshots wrote to the ledger
   * must be erased again (scans counted after the erase stay changed, for a later rollup).
   */
  acknowledge(days: readonly ScanDay[]): Promise<string[]>;
  /**
   * Drops the code's hot counters and visitor sets of every day still held (the counters' lifetime before `at`, up to
   * the day after it) and their pending rollup, so no later rollup writes an erased day back; a rollup that read them
   * before is told so by `acknowledge`.
   */
  erase(accountId: string, codeId: string, at: Date): Promise<void>;
}
