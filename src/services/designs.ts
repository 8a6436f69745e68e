// Use cases: saved designs — create and change them (validated, and scannability-checked by a real render), list,
// delete, and apply one to a request.
import { DESIGN_ID, DESIGN_NAME_MAX, newDesignId, withDesign, type DesignOptions } from '../domain/design.js';
import { ApiError, invalidField } from '../domain/errors.js';
import type { PlanCatalogue, PlanId } from '../domain/plan-catalogue.js';
import type { DesignChange, DesignRecord, DesignStore } from '../domain/ports/design-store.js';
import type { LogoStore } from '../domain/ports/logo-store.js';
import type { Renderer } from '../domain/ports/renderer.js';
import { brandingOf, isBranded, renderSpecOf, type GenerateQrInput } from './render-spec.js';

export interface DesignDeps {
  designs: DesignStore;
  plans: PlanCatalogue;
  /** A branded design is drawn once and read back before it is saved: the same check a branded request gets. */
  renderer: Pick<Renderer, 'render' | 'assertDrawable'>;
  logos: Pick<LogoStore, 'get'>;
  clock: () => Date;
}

interface Owner {
  accountId: string;
  plan: PlanId;
}

/** What a design is checked with: a typical URL code, the kind designs are made for. */
const SAMPLE_CONTENT = 'https://example.com/a-typical-link?campaign=spring';

function checkedName(name: string): string {
  const trimmed = name.trim();
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  if (trimmed.length === 0 || trimmed.length > DESIGN_NAME_MAX || /[\u0000-\u001f\u007f]/u.test(trimmed))
    throw invalidField('name', `1 to ${DESIGN_NAME_MAX} printable characters`);
  return trimmed;
}

/** A problem about a field of the options names it as `options.<field>`, as the request body spells it. */
function underOptions(error: unknown): unknown {
  if (!(error instanceof ApiError) || !error.fields) return error;
  const fields = error.fields.map((f) => ({
    ...f,
    field: f.field.startsWith('options.') ? f.field : `options.${f.field}`,
  }));
  return new ApiError(error.code, error.message, {
    fields,
    ...(error.extensions ? { extensions: error.extensions } : {}),
  });
}

/**
 * The options as a PNG of a typical link would use them: colours, size, logo (from this account), and for a branded
 * design the scan check.
 */
async function assertUsable(deps: DesignDeps, owner: Owner, options: DesignOptions): Promise<void> {
  // A design in cmyk() inks is a print design: checked as the PDF it is for (a PNG cannot carry them);
  // and so is one with a physical size but no dpi (a PNG at 300 dpi would bound sizeMm by its pixels).
  const print =
    [options.darkColor, options.lightColor].some((colour) => colour?.startsWith('cmyk(')) ||
    (options.sizeMm !== undefined && options.dpi === undefined);
  const input: GenerateQrInput = {
    ...options,
    content: SAMPLE_CONTENT,
    type: 'url',
    outputFormat: print ? 'pdf' : 'png',
  };
  if (print) delete input.dpi;
  try {
    let spec = renderSpecOf(input, SAMPLE_CONTENT);
    deps.renderer.assertDrawable(spec);
    if (isBranded(input)) {
      spec = { ...spec, branding: await brandingOf(deps, owner.accountId, input, spec.darkColor, spec.lightColor) };
      await deps.renderer.render(spec, owner);
    }
  } catch (error) {
    throw underOptions(error);
  }
}

export async function createDesign(
  deps: DesignDeps,
  owner: Owner,
  input: { name: string; options: DesignOptions },
): Promise<DesignRecord> {
  const plan = deps.plans.get(owner.plan);
  if (plan.designs === 0)
    throw new ApiError('plan_upgrade_required', `saved designs are not included in the ${plan.name} plan`, {
      extensions: { plan: plan.id },
    });
  const name = checkedName(input.name);
  await assertUsable(deps, owner, input.options);
  const created = await deps.designs.createWithinLimit(
    { id: newDesignId(), accountId: owner.accountId, name, options: input.options, createdAt: deps.clock() },
    plan.designs,
  );
  if (created === 'limit_reached') {
    throw new ApiError(
      'design_limit_reached',
      `the ${plan.name} plan keeps at most ${plan.designs} designs; delete one to save another`,
      {
        extensions: { limit: plan.designs },
      },
    );
  }
  return created;
}

export async function updateDesign(
  deps: DesignDeps,
  owner: Owner,
  id: string,
  change: DesignChange,
): Promise<DesignRecord> {
  const name = change.name === undefined ? undefined : checkedName(change.name);
  if (change.options !== undefined) await assertUsable(deps, owner, change.options);
  const updated = await deps.designs.update(owner.accountId, id, { name, options: change.options }, deps.clock());
  if (!updated) throw new ApiError('not_found', 'no design with this id in your account');
  return updated;
}

export async function getDesign(
  deps: Pick<DesignDeps, 'designs'>,
  accountId: string,
  id: string,
): Promise<DesignRecord> {
  const design = await deps.designs.get(accountId, id);
  if (!design) throw new ApiError('not_found', 'no design with this id in your account');
  return design;
}

export function listDesigns(deps: Pick<DesignDeps, 'designs'>, accountId: string): Promise<DesignRecord[]> {
  return deps.designs.list(accountId);
}

export async function deleteDesign(deps: Pick<DesignDeps, 'designs'>, accountId: string, id: string): Promise<void> {
  if (!(await deps.designs.delete(accountId, id)))
    throw new ApiError('not_found', 'no design with this id in your account');
}

/**
 * The request with its design's fields under it (the request's own fields win); a request without `design` as it is.
 */
export async function applyDesign<T extends { design?: string | undefined }>(
  deps: { designs: Pick<DesignStore, 'get'> },
  accountId: string,
  input: T,
  field = 'design',
): Promise<Omit<T, 'design'>> {
  const { design: designId, ...rest } = input;
  if (designId === undefined) return rest;
  const design = DESIGN_ID.test(designId) ? await deps.designs.get(accountId, designId) : undefined;
  if (!design) throw invalidField(field, 'no design with this id in your account');
  return withDesign(design.options, rest);
}
