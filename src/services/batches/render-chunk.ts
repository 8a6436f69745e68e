// Use case: render one chunk of a batch — idempotent per item (batch id + index), so a chunk run twice loses and
// doubles nothing.
import { BATCH_GROUP_COST, isFinished, type Batch, type BatchItemState } from '../../domain/batches/batch.js';
import { ApiError } from '../../domain/errors.js';
import type { BatchResults } from '../../domain/ports/batch-results.js';
import type { BatchStore, FinishedItem } from '../../domain/ports/batch-store.js';
import type { LogoStore } from '../../domain/ports/logo-store.js';
import type { RenderCaller } from '../../domain/ports/renderer.js';
import type { RenderSpec } from '../../domain/render-options.js';
import { renderCost } from '../../domain/render-cost.js';
import type { UsageMeter } from '../../domain/ports/usage-meter.js';

export interface RenderChunkDeps {
  batches: BatchStore;
  results: BatchResults;
  meter: UsageMeter;
  /**
   * Renders a group of specs as one task: each answered with its bytes or its refusal (ApiError); overload rejects
   * the group. Given `files` (the results' localPaths), the render thread writes each image there and answers 'stored'.
   */
  renderer: {
    renderMany(
      specs: RenderSpec[],
      caller: RenderCaller,
      files?: string[],
    ): Promise<Array<Uint8Array | 'stored' | ApiError>>;
  };
  clock: () => Date;
  /** Where a branded item's logo bytes are read again (items are stored with the logo's id and digest only). */
  logos: Pick<LogoStore, 'get'>;
  /** Resolves when lane `lane` may take the renderer (the embedded service lets synchronous requests go first). */
  turn?: (lane: number) => Promise<void>;
  /** Groups rendered at once (default 1); the services use a couple per pool thread. */
  concurrency?: number;
  /** Told once, by whichever group finishes the batch's last item. */
  onFinished?: (batch: Batch) => Promise<void>;
}

export interface Chunk {
  batchId: string;
  from: number;
  to: number;
}

/** Consecutive items up to BATCH_GROUP_COST of render cost (at least one item each). */
function groupsOf(items: readonly BatchItemState[]): BatchItemState[][] {
  const groups: BatchItemState[][] = [];
  let group: BatchItemState[] = [];
  let cost = 0;
  for (const item of items) {
    const itemCost = renderCost(item.spec);
    if (group.length > 0 && cost + itemCost > BATCH_GROUP_COST) {
      groups.push(group);
      group = [];
      cost = 0;
    }
    group.push(item);
    cost += itemCost;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/**
 * Each item's spec with its logo's bytes, read once per logo from the account's store; an item whose logo was
 * deleted (or replaced) since the batch was accepted is refused on its own, and refunded like any refusal.
 */
async function withLogoBytes(
  deps: RenderChunkDeps,
  accountId: string,
  items: readonly BatchItemState[],
): Promise<Array<RenderSpec | ApiError>> {
  const reads = new Map<string, ReturnType<LogoStore['get']>>();
  return Promise.all(
    items.map(async ({ spec }) => {
      const logo = spec.branding?.logo;
      if (!logo || logo.png) return spec;
      if (!reads.has(logo.id)) reads.set(logo.id, deps.logos.get(accountId, logo.id));
      const stored = await reads.get(logo.id)!;
      if (!stored || stored.digest !== logo.digest)
        return new ApiError('invalid_request', `logo ${logo.id} was deleted after the batch was accepted`);
      return { ...spec, branding: { ...spec.branding!, logo: { ...logo, png: stored.png } } };
    }),
  );
}

/** Returns how many items this run moved out of pending. */
export async function renderChunk(deps: RenderChunkDeps, chunk: Chunk): Promise<number> {
  const batch = await deps.batches.getById(chunk.batchId);
  if (!batch || isFinished(batch.status)) return 0;
  await deps.batches.markRunning(batch.id, deps.clock());
  const pending = (await deps.batches.items(batch.id, chunk.from, chunk.to)).filter((item) => item.state === 'pending');
  const groups = groupsOf(pending);
  let moved = 0;
  const lanes = Math.max(1, deps.concurrency ?? 1);
  let next = 0;
  // A batch cancelled (or finished by another run) while this chunk renders: its remaining groups are not started.
  let finished = false;
  const lane = async (_: unknown, laneIndex: number) => {
    while (next < groups.length && !finished) {
      await deps.turn?.(laneIndex);
      if (next >= groups.length || finished) break;
      const outcome = await renderGroup(deps, batch, groups[next++]!);
      moved += outcome.moved;
      finished ||= isFinished(outcome.status);
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, groups.length) }, lane));
  return moved;
}

/**
 * The files first, then the refunds, then the states in one step: a crash before the last re-renders the
 * group into the same files, and refunds are idempotent per item, so nothing is lost or counted twice.
 */
async function renderGroup(
  deps: RenderChunkDeps,
  batch: Batch,
  items: readonly BatchItemState[],
): Promise<{ moved: number; status: Batch['status'] }> {
  // Overload and a lost thread reject the whole group: the runner retries the chunk, nothing was written.
  // Results on this machine's disk are written by the render thread itself: the images never cross back.
  const files = deps.results.localPaths?.(
    batch.id,
    items.map((item) => item.index),
  );
  const specs = await withLogoBytes(deps, batch.accountId, items);
  const drawable = specs.flatMap((spec, i) => (spec instanceof ApiError ? [] : [i]));
  const drawn =
    drawable.length === 0
      ? []
      : await deps.renderer.renderMany(
          drawable.map((i) => specs[i] as RenderSpec),
          { accountId: batch.accountId, plan: batch.plan },
          files && drawable.map((i) => files[i]!),
        );
  const outcomes: Array<Uint8Array | 'stored' | ApiError> = specs.map((spec) =>
    spec instanceof ApiError ? spec : 'stored',
  );
  drawable.forEach((i, k) => (outcomes[i] = drawn[k]!));
  const finished: FinishedItem[] = [];
  const refused: Array<{ index: number; fingerprint: string }> = [];
  await Promise.all(
    items.map(async (item, i) => {
      const outcome = outcomes[i]!;
      if (outcome instanceof ApiError) {
        refused.push({ index: item.index, fingerprint: item.fingerprint });
        finished.push({ index: item.index, state: 'failed', errorCode: outcome.code });
        return;
      }
      if (outcome !== 'stored') await deps.results.put(batch.id, item.index, outcome);
      finished.push({ index: item.index, state: 'succeeded' });
    }),
  );
  if (refused.length > 0)
    await deps.meter.refundBatchItems({
      accountId: batch.accountId,
      period: batch.period,
      batchId: batch.id,
      items: refused,
    });
  const outcome = await deps.batches.finishItems(batch.id, finished, deps.clock());
  if (outcome.moved > 0 && isFinished(outcome.batch.status)) await deps.onFinished?.(outcome.batch);
  return { moved: outcome.moved, status: outcome.batch.status };
}
