// What a batch post may cost before it is parsed: a byte limit earned by the caller's plan, checked from Content-Length
// and while streaming.
import type { Plan } from '../../../domain/plan-catalogue.js';
import { ApiError } from '../../../domain/errors.js';

/**
 * Bytes one item may take on average. The largest QR code holds 7,089 digits or 2,953 bytes; with the
 * rendering fields, a `name` and JSON or CSV quoting an item that can be drawn stays under this.
 */
export const BATCH_ITEM_BUDGET_BYTES = 8_192;
/** The rest of the body: the JSON wrapper, `webhookUrl`, the CSV header row. */
export const BATCH_ENVELOPE_BYTES = 16_384;

/** The plan's maxBatchItems at their largest, never above the operator's ceiling (BATCH_BODY_LIMIT_BYTES). */
export function batchBodyLimit(plan: Plan, ceiling: number): number {
  if (plan.maxBatchItems === null) return ceiling;
  return Math.min(ceiling, BATCH_ENVELOPE_BYTES + plan.maxBatchItems * BATCH_ITEM_BUDGET_BYTES);
}

/** 413 batch_too_large for a body over the plan's byte limit (`bytes`: as declared, or as counted so far). */
export function batchBodyTooLarge(plan: Plan, limit: number, bytes: number): ApiError {
  const items = plan.maxBatchItems === null ? '' : ` (${plan.maxBatchItems} items per batch)`;
  return new ApiError(
    'batch_too_large',
    `the ${plan.name} plan${items} takes batch bodies of at most ${limit} bytes; this one is ${bytes} bytes or ` +
      `more (nothing was read or counted)`,
    { extensions: { limit: plan.maxBatchItems, limitBytes: limit } },
  );
}

/**
 * 413 batch_too_large for more items than the plan allows, found before any item is validated (`atLeast`: counting
 * stopped there).
 */
export function tooManyBatchItems(plan: Plan, limit: number, items: number, atLeast = false): ApiError {
  return new ApiError(
    'batch_too_large',
    `the ${plan.name} plan allows ${limit} items per batch; this one has ${atLeast ? 'more than ' + limit : items}`,
    {
      extensions: { limit, items },
    },
  );
}
