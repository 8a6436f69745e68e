// Render specs and stored batches built directly, for tests that drive the renderer or the batch store without HTTP.
import type { Batch, BatchItem } from '../../src/domain/batches/batch.js';
import { newBatchId } from '../../src/domain/batches/batch-id.js';
import { periodOf } from '../../src/domain/period.js';
import type { RenderSpec } from '../../src/domain/render-options.js';

/** A 512 px black-on-white PNG at level M, as a request with no options asks for; `overrides` change any of it. */
export function plainSpec(payload: string, overrides: Partial<RenderSpec> = {}): RenderSpec {
  return {
    payload,
    format: 'png',
    size: 512,
    margin: 4,
    errorCorrection: 'M',
    darkColor: '#000000ff',
    lightColor: '#ffffffff',
    ...overrides,
  };
}

/** A business account's batch as the store holds it once accepted: queued, nothing drawn. */
export function queuedBatch(accountId: string, total: number, createdAt: Date): Batch {
  return {
    id: newBatchId(createdAt),
    accountId,
    plan: 'business',
    status: 'queued',
    total,
    succeeded: 0,
    failed: 0,
    cancelled: 0,
    period: periodOf(createdAt),
    createdAt,
    startedAt: undefined,
    finishedAt: undefined,
    webhookUrl: undefined,
    idempotencyKey: undefined,
    requestHash: 'a'.repeat(64),
  };
}

/** Its items: item `index` a plain PNG of `payloadOf(index)`, saved as `<index>.png`. */
export function pngItems(batch: Batch, payloadOf: (index: number) => string): BatchItem[] {
  return Array.from({ length: batch.total }, (_, index) => ({
    index,
    name: undefined,
    file: `${index}.png`,
    type: 'url',
    fingerprint: `fp-${batch.id}-${index}`,
    spec: plainSpec(payloadOf(index)),
  }));
}
