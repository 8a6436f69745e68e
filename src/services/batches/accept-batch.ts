// Use case: accept a batch whole or not at all — limits, validation, one atomic reservation, then hand it to the renderers.
import { newBatchId } from '../../domain/batches/batch-id.js';
import type { Batch } from '../../domain/batches/batch.js';
import { ApiError } from '../../domain/errors.js';
import { periodOf } from '../../domain/period.js';
import type { PlanCatalogue } from '../../domain/plan-catalogue.js';
import type { BatchQueue } from '../../domain/ports/batch-queue.js';
import type { BatchStore } from '../../domain/ports/batch-store.js';
import type { Credential } from '../../domain/ports/key-store.js';
import type { LogoStore } from '../../domain/ports/logo-store.js';
import type { Renderer } from '../../domain/ports/renderer.js';
import type { UsageMeter } from '../../domain/ports/usage-meter.js';
import { quotaState, type QuotaState } from '../../domain/quota.js';
import type { DesignStore } from '../../domain/ports/design-store.js';
import { prepareItems, withItemDesigns, type BatchItemInput, type ItemLabel } from './prepare-items.js';

export interface AcceptBatchDeps {
  batches: BatchStore;
  meter: UsageMeter;
  queue: BatchQueue;
  clock: () => Date;
  plans: PlanCatalogue;
  renderer: Pick<Renderer, 'assertDrawable'>;
  logos: Pick<LogoStore, 'get'>;
  /** Where items' `design: "des_…"` are read from. */
  designs: Pick<DesignStore, 'get'>;
}

export interface BatchRequest {
  items: readonly BatchItemInput[];
  webhookUrl?: string | undefined;
  idempotencyKey?: string | undefined;
  /** SHA-256 of the body as sent: a replay with the same key must match it. */
  requestHash: string;
  label: ItemLabel;
}

export interface AcceptedBatch {
  batch: Batch;
  /** False when an Idempotency-Key replay returned the batch made the first time. */
  created: boolean;
  quota?: QuotaState;
}

type Caller = Pick<Credential, 'accountId' | 'plan'>;

async function replayed(deps: AcceptBatchDeps, caller: Caller, request: BatchRequest): Promise<AcceptedBatch | undefined> {
  if (request.idempotencyKey === undefined) return undefined;
  const earlier = await deps.batches.byIdempotencyKey(caller.accountId, request.idempotencyKey);
  return earlier && replayedOrConflict(earlier, request);
}

export async function acceptBatch(deps: AcceptBatchDeps, caller: Caller, request: BatchRequest): Promise<AcceptedBatch> {
  const again = await replayed(deps, caller, request);
  if (again) return again;

  const plan = deps.plans.get(caller.plan);
  // null: unlimited (the body limit still bounds a batch).
  if (plan.maxBatchItems !== null && request.items.length > plan.maxBatchItems) {
    throw new ApiError('batch_too_large', `the ${plan.name} plan allows ${plan.maxBatchItems} items per batch; this one has ${request.items.length}`, {
      extensions: { limit: plan.maxBatchItems, items: request.items.length },
    });
  }
  const items = await prepareItems(await withItemDesigns(deps, caller.accountId, request.items, request.label), plan, request.label, deps, caller.accountId);
  if (plan.batchesInFlight !== null && (await deps.batches.inFlight(caller.accountId)) >= plan.batchesInFlight) {
    throw new ApiError('too_many_batches', `the ${plan.name} plan runs ${plan.batchesInFlight} batches at a time; wait for one to finish`, {
      retryAfterSeconds: 10,
      extensions: { limit: plan.batchesInFlight },
    });
  }

  const now = deps.clock();
  const period = periodOf(now);
  const outcome = await deps.meter.reserveBatch({
    accountId: caller.accountId,
    period,
    qrs: items.map((item) => ({ fingerprint: item.fingerprint, type: item.type, payload: item.spec.payload })),
    limits: { requests: plan.requestsPerMonth, qrs: plan.qrsPerMonth },
    at: now,
  });
  const quota = quotaState(plan, outcome.usage, now);
  if (!outcome.ok) {
    const remaining = { requests: quota.requestsRemaining, qrs: quota.qrsRemaining };
    const detail =
      `this batch needs ${outcome.needed.requests} requests and ${outcome.needed.qrs} new QR codes; ` +
      `the ${plan.name} plan has ${remaining.requests} requests and ${remaining.qrs} QR codes left this month (nothing was counted)`;
    throw new ApiError(outcome.reason, detail, { retryAfterSeconds: quota.secondsToReset, quota, extensions: { needed: outcome.needed, remaining } });
  }

  const batch: Batch = {
    id: newBatchId(now),
    accountId: caller.accountId,
    plan: caller.plan,
    status: 'queued',
    total: items.length,
    succeeded: 0,
    failed: 0,
    cancelled: 0,
    period,
    createdAt: now,
    startedAt: undefined,
    finishedAt: undefined,
    webhookUrl: request.webhookUrl,
    idempotencyKey: request.idempotencyKey,
    requestHash: request.requestHash,
  };
  let stored;
  try {
    stored = await deps.batches.create(batch, items);
  } catch (error) {
    await refundAll(deps, batch, items);
    throw error;
  }
  if (!stored.created) {
    // A concurrent request with the same key won the race: this reservation is given back whole.
    await refundAll(deps, batch, items);
    return replayedOrConflict(stored.batch, request);
  }
  await deps.queue.enqueue(batch);
  return { batch, created: true, quota };
}

function refundAll(deps: AcceptBatchDeps, batch: Batch, items: ReadonlyArray<{ index: number; fingerprint: string }>): Promise<number> {
  return deps.meter.refundBatchItems({
    accountId: batch.accountId,
    period: batch.period,
    batchId: batch.id,
    items: items.map(({ index, fingerprint }) => ({ index, fingerprint })),
  });
}

function replayedOrConflict(earlier: Batch, request: BatchRequest): AcceptedBatch {
  if (earlier.requestHash !== request.requestHash) {
    throw new ApiError('idempotency_key_reused', `Idempotency-Key was first used for batch ${earlier.id} with another body; use a new key for a new batch`, {
      extensions: { batchId: earlier.id },
    });
  }
  return { batch: earlier, created: false };
}
