// Turns a batch's shape-checked items into render-ready items, collecting every failing item's problems at once.
import { encodeContent, type QrType } from '../../domain/content/index.js';
import { assignFileNames } from '../../domain/batches/file-names.js';
import type { BatchItem } from '../../domain/batches/batch.js';
import { ApiError, type FieldProblem } from '../../domain/errors.js';
import { planAllowsFormat, type Plan } from '../../domain/plan-catalogue.js';
import type { LogoStore } from '../../domain/ports/logo-store.js';
import type { Renderer } from '../../domain/ports/renderer.js';
import type { RenderSpec } from '../../domain/render-options.js';
import { fullSpecOf, qrFingerprint, type GenerateQrInput } from '../render-spec.js';
import type { DesignStore } from '../../domain/ports/design-store.js';
import { DESIGN_ID, withDesign, type DesignOptions } from '../../domain/design.js';
import { newSlug } from '../../domain/dynamic-code.js';
import { newCodeFields, type CampaignFields, type CodeDraft } from '../dynamic-codes.js';

/** A problem document stays readable (and small) even when every item of a large batch is wrong. */
const MAX_REPORTED_PROBLEMS = 1_000;

/**
 * `dynamic` in a batch item: a new dynamic code, made when the batch is accepted, whose short URL the item's image
 * encodes.
 */
export type DynamicItemInput = { target: string; name?: string | null | undefined } & Omit<CampaignFields, 'password'>;

/** A generate body and a `name`; with `dynamic`, no `content` (and `type` url or absent). */
export type BatchItemInput = Omit<GenerateQrInput, 'content' | 'type'> & {
  content?: unknown;
  type?: QrType | undefined;
  name?: string | undefined;
  dynamic?: DynamicItemInput | undefined;
};

/**
 * A validated item; one that makes a dynamic code carries the code to make (created once the batch's quota is
 * reserved).
 */
export type PreparedItem = BatchItem & { draft?: CodeDraft | undefined };

/** What a dynamic code encodes: `{base}/r/{slug}`, as the codes API answers `shortUrl`. */
export function dynamicPayload(shortUrlBase: string, slug: string): string {
  return `${shortUrlBase}/r/${slug}`;
}

/** Where an item sits in the request, for error paths: `items.3` in JSON, `line 5` in CSV. */
export type ItemLabel = (index: number) => string;

export interface PrepareItemsDeps {
  renderer: Pick<Renderer, 'assertDrawable'>;
  /** The caller's logos: a branded item names one of its own account's, or is refused with its index. */
  logos: Pick<LogoStore, 'get'>;
}

/** As stored: the logo by id and digest, without its bytes (one copy in the logo store, not one per item). */
function storedSpec(spec: RenderSpec): RenderSpec {
  const logo = spec.branding?.logo;
  if (!logo) return spec;
  return { ...spec, branding: { ...spec.branding!, logo: { id: logo.id, digest: logo.digest, scale: logo.scale } } };
}

/**
 * Each item with its design's fields under its own (`design: "des_…"`), every design read once; an unknown design is
 * reported for every item that names it, and nothing is accepted.
 */
export async function withItemDesigns(
  deps: { designs: Pick<DesignStore, 'get'> },
  accountId: string,
  inputs: readonly BatchItemInput[],
  label: ItemLabel,
): Promise<BatchItemInput[]> {
  const ids = [...new Set(inputs.map((input) => input.design).filter((id): id is string => id !== undefined))];
  if (ids.length === 0) return [...inputs];
  const designs = new Map<string, DesignOptions>();
  for (const id of ids) {
    const design = DESIGN_ID.test(id) ? await deps.designs.get(accountId, id) : undefined;
    if (design) designs.set(id, design.options);
  }
  const problems: FieldProblem[] = [];
  const merged = inputs.map((input, index) => {
    const { design: id, ...rest } = input;
    if (id === undefined) return rest;
    const options = designs.get(id);
    if (!options) {
      problems.push({ field: `${label(index)}.design`, detail: 'no design with this id in your account' });
      return rest;
    }
    return withDesign(options, rest);
  });
  if (problems.length > 0) {
    const shown = problems.slice(0, MAX_REPORTED_PROBLEMS);
    throw new ApiError(
      'invalid_request',
      `${problems.length} of ${inputs.length} items name a design this account does not have; nothing was ` +
        `accepted or counted`,
      {
        fields: shown,
      },
    );
  }
  return merged;
}

/** Field problems of one item as one ApiError (reported under the item's label). */
function itemProblems(fields: FieldProblem[]): ApiError {
  return new ApiError('invalid_request', fields.map((f) => `${f.field}: ${f.detail}`).join('; '), { fields });
}

/** The code a dynamic item makes, checked as POST /codes checks it; its problems named under `dynamic.`. */
async function draftOf(input: BatchItemInput, dynamic: DynamicItemInput): Promise<CodeDraft> {
  const problems: FieldProblem[] = [];
  if (input.content !== undefined)
    problems.push({
      field: 'content',
      detail: "must be absent with `dynamic`: the item encodes its new code's short URL",
    });
  if (input.type !== undefined && input.type !== 'url')
    problems.push({ field: 'type', detail: 'a dynamic item is a url: leave type out (or url)' });
  let fields: Awaited<ReturnType<typeof newCodeFields>> | undefined;
  try {
    fields = await newCodeFields(dynamic);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    for (const f of error.fields ?? [{ field: 'target', detail: error.message }])
      problems.push({ field: `dynamic.${f.field}`, detail: f.detail });
  }
  if (problems.length > 0 || !fields) throw itemProblems(problems);
  return { slug: newSlug(), ...fields };
}

/** What an item encodes: its content, or (dynamic) the short URL of the code drafted for it. */
async function encodedItem(
  input: BatchItemInput,
  shortUrlBase: string,
): Promise<{ type: QrType; payload: string; draft?: CodeDraft }> {
  if (input.dynamic !== undefined) {
    const draft = await draftOf(input, input.dynamic);
    return { type: 'url', payload: dynamicPayload(shortUrlBase, draft.slug), draft };
  }
  if (input.content === undefined || input.type === undefined) {
    const missing = (['type', 'content'] as const).filter((field) => input[field] === undefined);
    throw itemProblems(
      missing.map((field) => ({ field, detail: 'required (or `dynamic`, for an item that makes a dynamic code)' })),
    );
  }
  return { type: input.type, payload: encodeContent(input.type, input.content) };
}

/**
 * Every item checked, and every problem reported (not only the first): the caller fixes the batch in one go.
 * A dynamic item's code is drafted with a fresh slug, its short URL built on `shortUrlBase`; nothing is created here.
 */
export async function prepareItems(
  inputs: readonly BatchItemInput[],
  plan: Plan,
  label: ItemLabel,
  deps: PrepareItemsDeps,
  accountId: string,
  shortUrlBase: string,
): Promise<PreparedItem[]> {
  const problems: FieldProblem[] = [];
  const files = assignFileNames(inputs.map((input) => ({ name: input.name, format: input.outputFormat })));
  const items: PreparedItem[] = [];
  const failing = new Set<number>();
  // One store read per distinct logo of the batch, however many items name it.
  const logoReads = new Map<string, ReturnType<LogoStore['get']>>();
  const logos: Pick<LogoStore, 'get'> = {
    get: (account, id) => {
      if (!logoReads.has(id)) logoReads.set(id, deps.logos.get(account, id));
      return logoReads.get(id)!;
    },
  };
  // What the plan does not include is refused as a generate would refuse it (403), naming every such item.
  const beyondPlan = inputs.flatMap((input, index) => (planAllowsFormat(plan, input.outputFormat) ? [] : [index]));
  if (beyondPlan.length > 0) {
    const formats = [...new Set(beyondPlan.map((index) => inputs[index]!.outputFormat))];
    const fields = beyondPlan.slice(0, MAX_REPORTED_PROBLEMS).map((index) => ({
      field: `${label(index)}.outputFormat`,
      detail: `${inputs[index]!.outputFormat} is not included in the ${plan.name} plan`,
    }));
    throw new ApiError(
      'plan_upgrade_required',
      `${formats.join(', ')} output is not included in the ${plan.name} plan: ${beyondPlan.length} of ` +
        `${inputs.length} items ask for it ` +
        `(${fields
          .slice(0, 5)
          .map((f) => f.field.replace(/\.outputFormat$/, ''))
          .join(', ')}${beyondPlan.length > 5 ? ', …' : ''}); nothing was accepted or counted`,
      { fields, extensions: { plan: plan.id, items: beyondPlan.slice(0, MAX_REPORTED_PROBLEMS) } },
    );
  }
  for (const [index, input] of inputs.entries()) {
    const at = label(index);
    const before = problems.length;
    try {
      const { type, payload, draft } = await encodedItem(input, shortUrlBase);
      const request = { ...input, content: payload, type };
      // Branding as for one generate: shapes, colours held to contrast, the logo from the caller's own account.
      const spec = await fullSpecOf({ logos }, accountId, request, payload);
      // What could never be drawn (too long, or a size too small for it) is refused here, not refunded later.
      deps.renderer.assertDrawable(spec);
      items.push({
        index,
        name: input.name,
        file: files[index]!,
        type,
        fingerprint: qrFingerprint(type, payload),
        spec: storedSpec(spec),
        ...(draft ? { draft } : {}),
      });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const fields = error.fields ?? [{ field: 'content', detail: error.message }];
      for (const f of fields) problems.push({ field: `${at}.${f.field}`, detail: f.detail });
    } finally {
      if (problems.length > before) failing.add(index);
    }
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, MAX_REPORTED_PROBLEMS);
    const more = problems.length > shown.length ? ` (the first ${shown.length} problems are listed)` : '';
    throw new ApiError(
      'invalid_request',
      `${failing.size} of ${inputs.length} items are invalid; nothing was accepted or counted${more}`,
      { fields: shown },
    );
  }
  return items;
}
