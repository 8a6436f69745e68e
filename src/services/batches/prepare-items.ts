// Turns a batch's shape-checked items into render-ready items, collecting every failing item's problems at once.
import { encodeContent, type QrType } from '../../domain/content/index.js';
import { assignFileNames } from '../../domain/batches/file-names.js';
import type { BatchItem } from '../../domain/batches/batch.js';
import { ApiError, type FieldProblem } from '../../domain/errors.js';
import { planAllowsFormat, type Plan } from '../../domain/plan-catalogue.js';
import type { Renderer } from '../../domain/ports/renderer.js';
import { qrFingerprint, renderSpecOf, type GenerateQrInput } from '../generate-qr.js';

/** A problem document stays readable (and small) even when every item of a large batch is wrong. */
const MAX_REPORTED_PROBLEMS = 1_000;

export type BatchItemInput = GenerateQrInput & { name?: string | undefined };

/** Where an item sits in the request, for error paths: `items.3` in JSON, `line 5` in CSV. */
export type ItemLabel = (index: number) => string;

/** Every item checked, and every problem reported (not only the first): the caller fixes the batch in one go. */
export function prepareItems(inputs: readonly BatchItemInput[], plan: Plan, label: ItemLabel, renderer: Pick<Renderer, 'assertDrawable'>): BatchItem[] {
  const problems: FieldProblem[] = [];
  const files = assignFileNames(inputs.map((input) => ({ name: input.name, format: input.outputFormat })));
  const items: BatchItem[] = [];
  const failing = new Set<number>();
  inputs.forEach((input, index) => {
    const at = label(index);
    const before = problems.length;
    if (!planAllowsFormat(plan, input.outputFormat)) {
      problems.push({ field: `${at}.outputFormat`, detail: `${input.outputFormat} is not included in the ${plan.name} plan` });
      return;
    }
    try {
      const payload = encodeContent(input.type, input.content);
      const spec = renderSpecOf(input, payload);
      // What could never be drawn (too long, or a size too small for it) is refused here, not refunded later.
      renderer.assertDrawable(spec);
      items.push({ index, name: input.name, file: files[index]!, type: input.type as QrType, fingerprint: qrFingerprint(input.type, payload), spec });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const fields = error.fields ?? [{ field: 'content', detail: error.message }];
      for (const f of fields) problems.push({ field: `${at}.${f.field}`, detail: f.detail });
    } finally {
      if (problems.length > before) failing.add(index);
    }
  });
  if (problems.length > 0) {
    const shown = problems.slice(0, MAX_REPORTED_PROBLEMS);
    const more = problems.length > shown.length ? ` (the first ${shown.length} problems are listed)` : '';
    throw new ApiError('invalid_request', `${failing.size} of ${inputs.length} items are invalid; nothing was accepted or counted${more}`, { fields: shown });
  }
  return items;
}
