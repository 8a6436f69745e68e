// The background jobs, in one place: stable names, UTC cron patterns and the processor each runs. Both runners read
// this.
import type { BatchQueue } from '../domain/ports/batch-queue.js';
import type { BatchResults } from '../domain/ports/batch-results.js';
import type { BatchStore } from '../domain/ports/batch-store.js';
import type { KeyStore } from '../domain/ports/key-store.js';
import { expireBatches } from './batches/cancel-batch.js';
import { requeueStalledBatches } from './batches/requeue-batches.js';
import type { LastUsedLog } from '../domain/ports/last-used-log.js';
import type { WebhookSender } from '../domain/ports/webhook-sender.js';
import { deliverDueWebhooks } from './batches/batch-webhook.js';
import { closePeriod } from './close-period.js';
import type { ScanWebhookDispatcher } from './scan-webhooks.js';
import { flushLastUsed } from './flush-last-used.js';
import { rollupScans, type RollupScansDeps } from './rollup-scans.js';
import { rollupUsage, type RollupUsageDeps } from './rollup-usage.js';
import type { CustomDomainStore } from '../domain/ports/custom-domain-store.js';
import type { DomainProbe } from '../domain/ports/domain-probe.js';
import type { ScanWebhookStore } from '../domain/ports/scan-webhooks.js';
import type { TxtLookup } from '../domain/ports/txt-lookup.js';
import { sweepDomains } from './domain-proof.js';
import type { AuditLog } from '../domain/ports/audit-log.js';
import { sweepAuditLog } from './audit-log.js';
import { sweepScanDetail, type SweepScanDetailDeps } from './sweep-scan-detail.js';
import { tellDomainSuspended } from './domain-suspended-webhook.js';

export interface BackgroundJobDeps extends RollupUsageDeps, RollupScansDeps {
  keys: Pick<KeyStore, 'recordLastUsed'>;
  lastUsed: LastUsedLog;
  clock: () => Date;
  /** Batch retention: finished batches older than this lose their files and record (no batch store: nothing to do). */
  batches?: BatchStore | undefined;
  batchResults?: BatchResults | undefined;
  batchRetentionMs?: number;
  /** The render queue, in Redis mode only (the embedded service resumes its batches at start instead). */
  batchQueue?: BatchQueue | undefined;
  /** Sends the batch webhooks that are due (no sender: the sweep does nothing). */
  webhookSender?: WebhookSender | undefined;
  /** Tells the scan webhooks of new scans (none: the job does nothing). */
  scanWebhookDispatcher?: ScanWebhookDispatcher | undefined;
  /** Custom domains, the DNS that proves them and the reachability check (any absent: the job does nothing). */
  domains?: CustomDomainStore | undefined;
  domainDns?: TxtLookup | undefined;
  domainProbe?: DomainProbe | undefined;
  /** Where `domain.suspended` goes (with webhookSender, and the batch store's account secrets). */
  scanWebhooks?: Pick<ScanWebhookStore, 'list'> | undefined;
  /** The audit log whose entries past their retention the daily sweep drops (none: nothing to do). */
  auditLog?: Pick<AuditLog, 'deleteExpired'> | undefined;
  log?: { warn(obj: object, msg: string): void };
  /** The codes, their owners and the plans the scan-retention sweep reads (any absent: nothing to do). */
  codes?: SweepScanDetailDeps['codes'] | undefined;
  accounts?: SweepScanDetailDeps['accounts'] | undefined;
  plans?: SweepScanDetailDeps['plans'] | undefined;
}

export const JOB_NAMES = [
  'usage-rollup',
  'period-close',
  'last-used-flush',
  'scan-rollup',
  'batch-expiry',
  'batch-requeue',
  'batch-webhooks',
  'scan-webhooks',
  'domain-verification',
  'audit-log-retention',
  'scan-retention',
] as const;
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
  // Daily rather than monthly: a run finds nothing unless a month has ended, and a failed close is retried the next
  // day.
  { name: 'period-close', pattern: '5 0 * * *', run: (deps) => closePeriod(deps) },
  { name: 'last-used-flush', pattern: '* * * * *', run: (deps) => flushLastUsed(deps) },
  // Production only (Redis counters into the system of record); in the embedded default the scan recorder writes SQLite
  // itself.
  { name: 'scan-rollup', pattern: '* * * * *', run: (deps) => rollupScans(deps) },
  { name: 'batch-expiry', pattern: '17 * * * *', run: (deps) => expireFinishedBatches(deps) },
  // An API that died between storing a batch and queuing its chunks left it queued with no jobs.
  { name: 'batch-requeue', pattern: '* * * * *', run: (deps) => requeueBatches(deps) },
  // Webhook retries whose process died, and webhooks of batches finished just before a crash (the embedded service runs
  // it every few seconds).
  { name: 'batch-webhooks', pattern: '* * * * *', run: (deps) => sweepWebhooks(deps) },
  // Every second (six fields, seconds first): scan webhooks carry the scans since their last message.
  {
    name: 'scan-webhooks',
    pattern: '* * * * * *',
    run: (deps) => deps.scanWebhookDispatcher?.tick() ?? Promise.resolve(0),
  },
  // Custom domains: unproved claims whose TXT record now holds their token become active (each asked at most every
  // 5 minutes), claims pending 7 days expire, active domains are re-checked daily and suspended when their proof is
  // gone.
  { name: 'domain-verification', pattern: '* * * * *', run: (deps) => verifyDomains(deps) },
  // Daily: entries past their plan's auditLogDays (stamped on each when written) go.
  {
    name: 'audit-log-retention',
    pattern: '41 3 * * *',
    run: (deps) => (deps.auditLog ? sweepAuditLog({ auditLog: deps.auditLog, clock: deps.clock }) : Promise.resolve(0)),
  },
  // Daily: scan detail past the owner's plan's scanRetentionDays is reduced to the day's totals.
  { name: 'scan-retention', pattern: '23 4 * * *', run: (deps) => sweepRetainedScans(deps) },
];

function sweepRetainedScans(deps: BackgroundJobDeps): Promise<unknown> {
  const { codes, accounts, scanLedger, plans } = deps;
  if (!codes || !accounts || !scanLedger || !plans) return Promise.resolve(undefined);
  return sweepScanDetail({ codes, accounts, scanLedger, plans, clock: deps.clock });
}

async function verifyDomains(deps: BackgroundJobDeps): Promise<unknown> {
  const { domains, domainDns, domainProbe, scanWebhooks, batches, webhookSender } = deps;
  if (!domains || !domainDns || !domainProbe) return undefined;
  return sweepDomains({
    domains,
    dns: domainDns,
    probe: domainProbe,
    clock: deps.clock,
    suspended: async (domain) => {
      if (!scanWebhooks || !batches || !webhookSender) return;
      await tellDomainSuspended(
        {
          scanWebhooks,
          secrets: batches,
          sender: webhookSender,
          clock: deps.clock,
          ...(deps.log ? { log: deps.log } : {}),
        },
        domain,
      );
    },
  });
}

function expireFinishedBatches(deps: BackgroundJobDeps): Promise<number> {
  if (!deps.batches || !deps.batchResults || deps.batchRetentionMs === undefined) return Promise.resolve(0);
  return expireBatches(
    { batches: deps.batches, results: deps.batchResults },
    new Date(deps.clock().getTime() - deps.batchRetentionMs),
  );
}

function requeueBatches(deps: BackgroundJobDeps): Promise<number> {
  if (!deps.batches || !deps.batchQueue) return Promise.resolve(0);
  return requeueStalledBatches({ batches: deps.batches, queue: deps.batchQueue, clock: deps.clock });
}

function sweepWebhooks(deps: BackgroundJobDeps): Promise<number> {
  if (!deps.batches || !deps.webhookSender) return Promise.resolve(0);
  return deliverDueWebhooks({
    batches: deps.batches,
    sender: deps.webhookSender,
    clock: deps.clock,
    ...(deps.log ? { log: deps.log } : {}),
  });
}

/** A job with its dependencies bound, ready for a runner. */
export interface RunnableJob {
  name: JobName;
  pattern: string;
  run(): Promise<unknown>;
}

export function bindJobs(deps: BackgroundJobDeps, jobs: readonly BackgroundJob[] = BACKGROUND_JOBS): RunnableJob[] {
  return jobs.map((job) => ({ name: job.name, pattern: job.pattern, run: () => job.run(deps) }));
}
