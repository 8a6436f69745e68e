// Use case: accept a batch whole or not at all — limits, validation, one atomic reservation, then hand it to the
// renderers.
import { newBatchId } from '../../domain/batches/batch-id.js';
import type { Batch, BatchItem } from '../../domain/batches/batch.js';
import { newSlug, type DynamicCode } from '../../domain/dynamic-code.js';
import type { DynamicCodeStore } from '../../domain/ports/dynamic-code-store.js';
import { assertRoomForCodes, createCodes } from '../dynamic-codes.js';
import { qrFingerprint } from '../render-spec.js';
import { ApiError } from '../../domain/errors.js';
import { periodOf } from '../../domain/period.js';
import { biggerPlanHint, type PlanCatalogue } from '../../domain/plan-catalogue.js';
import type { BatchQueue } from '../../domain/ports/batch-queue.js';
import type { BatchStore } from '../../domain/ports/batch-store.js';
import type { Credential } from '../../domain/ports/key-store.js';
import type { LogoStore } from '../../domain/ports/logo-store.js';
import type { Renderer } from '../../domain/ports/renderer.js';
import type { UsageMeter } from '../../domain/ports/usage-meter.js';
import { quotaState, type QuotaState } from '../../domain/quota.js';
import type { DesignStore } from '../../domain/ports/design-store.js';
import {
  dynamicPayload,
  prepareItems,
  withItemDesigns,
  type BatchItemInput,
  type ItemLabel,
  type PreparedItem,
} from './prepare-items.js';

/** Draws of a batch's slugs before giving up (a fresh slug is taken about once in 10^14 draws). */
const SLUG_ATTEMPTS = 5;

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
  /** Where dynamic items' codes are made (and removed again when the batch is not stored). */
  codes: DynamicCodeStore;
}

export interface BatchRequest {
  items: readonly BatchItemInput[];
  webhookUrl?: string | undefined;
  idempotencyKey?: string | undefined;
  /** SHA-256 of the body as sent: a replay with the same key must match it. */
  requestHash: string;
  label: ItemLabel;
  /**
   * The origin dynamic items' short URLs are built on (PUBLIC_URL, or the listening address), as the codes API builds
   * them.
   */
  shortUrlBase: string;
}

export interface AcceptedBatch {
  batch: Batch;
  /** False when an Idempotency-Key replay returned the batch made the first time. */
  created: boolean;
  quota?: QuotaState;
}

type Caller = Pick<Credential, 'accountId' | 'plan'>;

async function replayed(
  deps: AcceptBatchDeps,
  caller: Caller,
  request: BatchRequest,
): Promise<AcceptedBatch | undefined> {
  if (request.idempotencyKey === undefined) return undefined;
  const earlier = await deps.batches.byIdempotencyKey(caller.accountId, request.idempotencyKey);
  return earlier && replayedOrConflict(earlier, request);
}

export async function acceptBatch(
  deps: AcceptBatchDeps,
  caller: Caller,
  request: BatchRequest,
): Promise<AcceptedBatch> {
  const again = await replayed(deps, caller, request);
  if (again) return again;

  const plan = deps.plans.get(caller.plan);
  // null: unlimited (the body limit still bounds a batch).
  if (plan.maxBatchItems !== null && request.items.length > plan.maxBatchItems) {
    throw new ApiError(
      'batch_too_large',
      `the ${plan.name} plan allows ${plan.maxBatchItems} items per batch; this one has ${request.items.length}`,
      {
        extensions: { limit: plan.maxBatchItems, items: request.items.length },
      },
    );
  }
  const inputs = await withItemDesigns(deps, caller.accountId, request.items, request.label);
  let items = await prepareItems(inputs, plan, request.label, deps, caller.accountId, request.shortUrlBase);
  if (plan.batchesInFlight !== null && (await deps.batches.inFlight(caller.accountId)) >= plan.batchesInFlight) {
    throw new ApiError(
      'too_many_batches',
      `the ${plan.name} plan runs ${plan.batchesInFlight} batches at a time; wait for one to finish`,
      {
        retryAfterSeconds: 10,
        extensions: { limit: plan.batchesInFlight },
      },
    );
  }
  // The plan's dynamic-code limit holds for the whole batch, before anything is reserved (and again, atomically, when
  // the codes are made).
  await assertRoomForCodes(deps, caller, items.filter((item) => item.draft).length);
  for (let attempt = 1; ; attempt++) {
    const accepted = await reserveAndStore(deps, caller, request, items);
    if (accepted !== 'slug_taken') return accepted;
    // A drawn slug was taken meanwhile (about once in 10^14 draws per code): everything was given back; draw again.
    if (attempt === SLUG_ATTEMPTS) throw new Error("could not draw unused slugs for the batch's dynamic codes");
    items = items.map((item) => (item.draft ? withSlug(item, newSlug(), request.shortUrlBase) : item));
  }
}

/** A fresh slug for a dynamic item: its code, its image's payload and its fingerprint follow. */
function withSlug(item: PreparedItem, slug: string, shortUrlBase: string): PreparedItem {
  const payload = dynamicPayload(shortUrlBase, slug);
  return {
    ...item,
    spec: { ...item.spec, payload },
    fingerprint: qrFingerprint(item.type, payload),
    draft: { ...item.draft!, slug },
  };
}

/**
 * The quota first (all or nothing), then the dynamic codes (all or nothing, within the plan), then the batch and its
 * items in one store write: a failure at any step gives back what the steps before took.
 */
async function reserveAndStore(
  deps: AcceptBatchDeps,
  caller: Caller,
  request: BatchRequest,
  items: readonly PreparedItem[],
): Promise<AcceptedBatch | 'slug_taken'> {
  const plan = deps.plans.get(caller.plan);
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
      (`the ${plan.name} plan has ${remaining.requests} requests and ${remaining.qrs} QR codes left this month ` +
        `(nothing was counted); the quota resets at ${quota.resetAt.toISOString()}`) +
      biggerPlanHint(deps.plans, plan, outcome.reason === 'quota_exceeded' ? 'requestsPerMonth' : 'qrsPerMonth');
    throw new ApiError(outcome.reason, detail, {
      retryAfterSeconds: quota.secondsToReset,
      quota,
      extensions: { needed: outcome.needed, remaining },
    });
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
  const codes = await madeCodes(deps, caller, batch, items);
  if (codes === 'slug_taken') return codes;
  let stored;
  try {
    stored = await deps.batches.create(batch, withCodeIds(items, codes));
  } catch (error) {
    await giveBack(deps, batch, items, codes);
    throw error;
  }
  if (!stored.created) {
    // A concurrent request with the same key won the race: this reservation (and its codes) is given back whole.
    await giveBack(deps, batch, items, codes);
    return replayedOrConflict(stored.batch, request);
  }
  await deps.queue.enqueue(batch);
  return { batch, created: true, quota };
}

/**
 * The batch's dynamic codes, in item order; a refusal (the plan's limit) or a taken slug gives the reservation back.
 */
async function madeCodes(
  deps: AcceptBatchDeps,
  caller: Caller,
  batch: Batch,
  items: readonly PreparedItem[],
): Promise<DynamicCode[] | 'slug_taken'> {
  const drafts = items.flatMap((item) => (item.draft ? [item.draft] : []));
  if (drafts.length === 0) return [];
  let created;
  try {
    created = await createCodes(deps, caller, drafts);
  } catch (error) {
    await refundAll(deps, batch, items);
    throw error;
  }
  if (created === 'slug_taken') await refundAll(deps, batch, items);
  return created;
}

/** The items as stored: each dynamic one names its code (the drafts were made in item order). */
function withCodeIds(items: readonly PreparedItem[], codes: readonly DynamicCode[]): BatchItem[] {
  let next = 0;
  return items.map(({ draft, ...item }) => (draft ? { ...item, codeId: codes[next++]!.id } : item));
}

async function giveBack(
  deps: AcceptBatchDeps,
  batch: Batch,
  items: readonly PreparedItem[],
  codes: readonly DynamicCode[],
): Promise<void> {
  await refundAll(deps, batch, items);
  for (const code of codes) await deps.codes.remove(batch.accountId, code.id, deps.clock());
}

function refundAll(
  deps: AcceptBatchDeps,
  batch: Batch,
  items: ReadonlyArray<{ index: number; fingerprint: string }>,
): Promise<number> {
  return deps.meter.refundBatchItems({
    accountId: batch.accountId,
    period: batch.period,
    batchId: batch.id,
    items: items.map(({ index, fingerprint }) => ({ index, fingerprint })),
  });
}

function replayedOrConflict(earlier: Batch, request: BatchRequest): AcceptedBatch {
  if (earlier.requestHash !== request.requestHash) {
    throw new ApiError(
      'idempotency_key_reused',
      `Idempotency-Key was first used for batch ${earlier.id} with another body; use a new key for a new batch`,
      {
        extensions: { batchId: earlier.id },
      },
    );
  }
  return { batch: earlier, created: false };
}
