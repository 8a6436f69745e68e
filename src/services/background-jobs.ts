// The background jobs, in one place: stable names, UTC cron patterns and the processor each runs. Both runners read this.
import type { KeyStore } from '../domain/ports/key-store.js';
import type { LastUsedLog } from '../domain/ports/last-used-log.js';
import { closePeriod } from './close-period.js';
import { flushLastUsed } from './flush-last-used.js';
import { rollupScans, type RollupScansDeps } from './rollup-scans.js';
import { rollupUsage, type RollupUsageDeps } from './rollup-usage.js';

export interface BackgroundJobDeps extends RollupUsageDeps, RollupScansDeps {
  keys: Pick<KeyStore, 'recordLastUsed'>;
  lastUsed: LastUsedLog;
  clock: () => Date;
}

export const JOB_NAMES = ['usage-rollup', 'period-close', 'last-used-flush', 'scan-rollup'] as const;
export type JobName = (typeof JOB_NAMES)[number];

export interface BackgroundJob {
  /** Also the scheduler id: upserting it again replaces, never duplicates. */
  name: JobName;
  /** Five-field cron, evaluated in UTC. */
  pattern: string;
  run(deps: BackgroundJobDeps): Promise<unknown>;
}

export const BACKGROUND_JOBS: readonly BackgroundJob[] = [
  { name: 'usage-rollup', pattern: '* * * * *', run: (deps) => rollupUsage(deps) },
  // Daily rather than monthly: a run finds nothing unless a month has ended, and a failed close is retried the next day.
  { name: 'period-close', pattern: '5 0 * * *', run: (deps) => closePeriod(deps) },
  { name: 'last-used-flush', pattern: '* * * * *', run: (deps) => flushLastUsed(deps) },
  // Production only (Redis counters into the system of record); in the embedded default the scan recorder writes SQLite itself.
  { name: 'scan-rollup', pattern: '* * * * *', run: (deps) => rollupScans(deps) },
];

/** A job with its dependencies bound, ready for a runner. */
export interface RunnableJob {
  name: JobName;
  pattern: string;
  run(): Promise<unknown>;
}

export function bindJobs(deps: BackgroundJobDeps, jobs: readonly BackgroundJob[] = BACKGROUND_JOBS): RunnableJob[] {
  return jobs.map((job) => ({ name: job.name, pattern: job.pattern, run: () => job.run(deps) }));
}
