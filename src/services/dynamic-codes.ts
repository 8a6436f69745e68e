// Use cases for dynamic codes: create within the plan's limit, list, read, change, delete, and read scan statistics.
import {
  CODE_NAME_MAX_LENGTH,
  DISABLED_REASON_MAX_LENGTH,
  newSlug,
  SLUG_PATTERN,
  targetProblem,
  type CodeStatus,
  type DynamicCode,
  type OwnerStatus,
} from '../domain/dynamic-code.js';
import {
  NO_ROUTING,
  routingProblems,
  type CodeRouting,
  type RedirectRule,
  type SplitArm,
  type Utm,
} from '../domain/code-routing.js';
import { ApiError, invalidField } from '../domain/errors.js';
import { hashPassword } from '../domain/password-hash.js';
import {
  decodeCountCursor,
  decodeCursor,
  encodeCountCursor,
  encodeCursor,
  PAGE_SIZE,
  type Page,
} from '../domain/list-page.js';
import { dynamicCodeLimit, type PlanCatalogue, type PlanId } from '../domain/plan-catalogue.js';
import type { CodeCursor, CodeOrder, DynamicCodeStore, NewDynamicCode } from '../domain/ports/dynamic-code-store.js';
import type { Vanity } from '../domain/custom-domain.js';
import { vanityFor } from './custom-domains.js';
import { accountDomain, type DomainLookup } from './account-domain.js';

export interface DynamicCodeDeps {
  codes: DynamicCodeStore;
  clock: () => Date;
  plans: PlanCatalogue;
  /**
   * The account's custom domains, for codes that ask for one (`domain` and `slug`); without it such codes are refused.
   */
  domains?: DomainLookup | undefined;
}

export interface CodeOwner {
  accountId: string;
  plan: PlanId;
}

export { PAGE_SIZE };

/** A fresh random slug is taken by another code about once in 10^14 draws; a few tries are plenty. */
const SLUG_ATTEMPTS = 5;

function checkedTarget(target: string): string {
  const problem = targetProblem(target);
  if (problem) throw invalidField('target', problem);
  return target;
}

function checkedName(name: string | null | undefined): string | null {
  if (name === undefined || name === null) return null;
  const trimmed = name.trim();
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  if (trimmed.length > CODE_NAME_MAX_LENGTH || /[\u0000-\u001f\u007f]/u.test(trimmed)) {
    throw invalidField('name', `at most ${CODE_NAME_MAX_LENGTH} printable characters`);
  }
  return trimmed === '' ? null : trimmed;
}

/** A plan with no dynamic-code limit (null): the stores take a number, and none will ever hold this many. */
const UNLIMITED_CODES = Number.MAX_SAFE_INTEGER;

function notFound(): ApiError {
  // Another tenant's code answers exactly like a missing one: no existence oracle.
  return new ApiError('not_found', 'no such dynamic code on this account');
}

/**
 * The campaign fields of a create or a change, as the API takes them (shape and bounds already checked by its schema).
 */
export interface CampaignFields {
  rules?: RedirectRule[] | undefined;
  /** The default's weighted split; null ends it. */
  split?: SplitArm[] | null | undefined;
  expiresAt?: string | null | undefined;
  maxScans?: number | null | undefined;
  expiredTarget?: string | null | undefined;
  forwardQuery?: boolean | undefined;
  utm?: Utm | null | undefined;
  /** Write-only: stored as a scrypt hash; null removes it. */
  password?: string | null | undefined;
}

const normalisedInstant = (iso: string) => new Date(iso).toISOString();

/** Where a code lives: `domain` (a custom domain's id) and `slug` (its own path there) come together. */
export interface VanityFields {
  domain?: string | null | undefined;
  slug?: string | undefined;
}

async function vanityOf(
  deps: Pick<DynamicCodeDeps, 'domains'>,
  accountId: string,
  domainId: string,
  slug: string | undefined,
): Promise<Vanity> {
  if (slug === undefined) throw invalidField('slug', 'a code on a custom domain needs a slug of its own there');
  if (!deps.domains) throw invalidField('domain', 'custom domains are not available here');
  return vanityFor({ domains: deps.domains }, accountId, domainId, slug);
}

function slugTaken(vanity: Vanity): ApiError {
  return new ApiError('slug_taken', `${vanity.hostname}/${vanity.slug} is taken by another code`, {
    fields: [{ field: 'slug', detail: 'taken on this domain' }],
  });
}

/**
 * The routing fields a request sets, validated like `target` and with the password hashed; absent fields are left out.
 */
async function routingChanges(input: CampaignFields): Promise<Partial<CodeRouting>> {
  const changes: Partial<CodeRouting> = {};
  if (input.rules !== undefined) {
    changes.rules = input.rules.map((rule) => {
      const { after, before, ...rest } = rule.if;
      return {
        if: {
          ...rest,
          ...(after === undefined ? {} : { after: normalisedInstant(after) }),
          ...(before === undefined ? {} : { before: normalisedInstant(before) }),
        },
        ...(rule.split === undefined ? {} : { split: rule.split }),
        ...(rule.target === undefined ? {} : { target: rule.target }),
      };
    });
  }
  if (input.split !== undefined) changes.split = input.split;
  if (input.expiresAt !== undefined)
    changes.expiresAt = input.expiresAt === null ? null : normalisedInstant(input.expiresAt);
  if (input.maxScans !== undefined) changes.maxScans = input.maxScans;
  if (input.expiredTarget !== undefined) changes.expiredTarget = input.expiredTarget;
  if (input.forwardQuery !== undefined) changes.forwardQuery = input.forwardQuery;
  if (input.utm !== undefined) changes.utm = input.utm;
  const problems = routingProblems({
    rules: changes.rules ?? [],
    split: changes.split ?? null,
    expiredTarget: changes.expiredTarget ?? null,
  });
  if (problems.length > 0)
    throw new ApiError('invalid_request', problems.map((p) => `${p.field}: ${p.detail}`).join('; '), {
      fields: problems,
    });
  if (input.password !== undefined)
    changes.passwordHash = input.password === null ? null : await hashPassword(input.password);
  return changes;
}

/**
 * The code's `target` as a create or change gives it: with a default split, its first arm's (a different `target`
 * beside the split is refused, never dropped); undefined when the request names neither.
 */
function defaultTarget(input: {
  target?: string | undefined;
  split?: SplitArm[] | null | undefined;
}): string | undefined {
  const first = input.split?.[0]?.target;
  if (first === undefined) return input.target === undefined ? undefined : checkedTarget(input.target);
  if (input.target !== undefined && input.target !== first) {
    throw invalidField(
      'target',
      "with `split`, the code's target is its first arm's: give `split` alone, or a matching target",
    );
  }
  return first;
}

function requiredTarget(input: { target?: string | undefined; split?: SplitArm[] | null | undefined }): string {
  const target = defaultTarget(input);
  if (target === undefined) throw invalidField('target', 'required (or give `split`)');
  return target;
}

export async function createCode(
  deps: DynamicCodeDeps,
  owner: CodeOwner,
  input: { target?: string | undefined; name?: string | null | undefined } & CampaignFields & VanityFields,
): Promise<DynamicCode> {
  const target = requiredTarget(input);
  const name = checkedName(input.name);
  if (input.slug !== undefined && (input.domain === undefined || input.domain === null))
    throw invalidField('slug', 'needs `domain`: a slug of its own exists only on a custom domain');
  const vanity =
    input.domain === undefined || input.domain === null
      ? undefined
      : await vanityOf(deps, owner.accountId, input.domain, input.slug);
  const routing: CodeRouting = { ...NO_ROUTING, ...(await routingChanges(input)) };
  const plan = deps.plans.get(owner.plan);
  const limit = dynamicCodeLimit(plan);
  for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt++) {
    const created = await deps.codes.createWithinLimit(
      {
        accountId: owner.accountId,
        slug: newSlug(),
        target,
        name,
        routing,
        ...(vanity ? { vanity } : {}),
        createdAt: deps.clock(),
      },
      limit ?? UNLIMITED_CODES,
    );
    if (created === 'slug_taken') continue;
    if (created === 'vanity_taken') throw slugTaken(vanity!);
    if (created === 'limit_reached') {
      throw new ApiError(
        'code_limit_reached',
        `the ${plan.name} plan allows ${limit} dynamic codes at once; delete one to create another`,
        {
          extensions: { limit },
        },
      );
    }
    return created;
  }
  throw new Error('could not draw an unused slug');
}

/** A new code's fields, validated and normalised as `createCode` does it (batch items make codes of these). */
export async function newCodeFields(
  input: { target?: string | undefined; name?: string | null | undefined } & CampaignFields,
): Promise<Pick<NewDynamicCode, 'target' | 'name' | 'routing'>> {
  return {
    target: requiredTarget(input),
    name: checkedName(input.name),
    routing: { ...NO_ROUTING, ...(await routingChanges(input)) },
  };
}

/** A batch's new codes, each with its slug already drawn (its image was made for it). */
export type CodeDraft = Pick<NewDynamicCode, 'slug' | 'target' | 'name' | 'routing'>;

function codeLimitReached(planName: string, limit: number, held: number, needed: number): ApiError {
  return new ApiError(
    'code_limit_reached',
    `the ${planName} plan allows ${limit} dynamic codes at once; this account holds ${held} and the batch ` +
      `makes ${needed} more; nothing was accepted or counted`,
    { extensions: { limit, held, needed } },
  );
}

/**
 * Refuses (409 `code_limit_reached`) when the account has no room for `needed` more codes: a cheap check before
 * anything is reserved.
 */
export async function assertRoomForCodes(
  deps: Pick<DynamicCodeDeps, 'codes' | 'plans'>,
  owner: CodeOwner,
  needed: number,
): Promise<void> {
  const plan = deps.plans.get(owner.plan);
  const limit = dynamicCodeLimit(plan);
  if (limit === null || needed === 0) return;
  const held = await deps.codes.count(owner.accountId);
  if (held + needed > limit) throw codeLimitReached(plan.name, limit, held, needed);
}

/**
 * Every draft made a code, in order, or none (409 `code_limit_reached`: the plan's limit holds for the lot,
 * atomically);
 * `slug_taken` when a drawn slug was taken meanwhile (the caller draws again).
 */
export async function createCodes(
  deps: DynamicCodeDeps,
  owner: CodeOwner,
  drafts: readonly CodeDraft[],
): Promise<DynamicCode[] | 'slug_taken'> {
  const plan = deps.plans.get(owner.plan);
  const limit = dynamicCodeLimit(plan);
  const at = deps.clock();
  const created = await deps.codes.createManyWithinLimit(
    drafts.map((draft) => ({ ...draft, accountId: owner.accountId, createdAt: at })),
    limit ?? UNLIMITED_CODES,
  );
  if (created === 'limit_reached')
    throw codeLimitReached(plan.name, limit ?? UNLIMITED_CODES, await deps.codes.count(owner.accountId), drafts.length);
  return created;
}

export type CodePage = Page<DynamicCode>;

/** What `GET /codes` filters and orders by; all given conditions hold. */
export interface CodeListQuery {
  limit?: number | undefined;
  cursor?: string | undefined;
  /** Found, in any case, in the name, the target or a slug. */
  q?: string | undefined;
  status?: CodeStatus | undefined;
  /** A custom domain of the account, by id or hostname. */
  domain?: string | undefined;
  slug?: string | undefined;
  /**
   * `-created` (default): newest first; `created`: oldest first; `-scans`: most scanned first; `scans`: fewest first.
   */
  sort?: CodeSort | undefined;
}

export const CODE_SORTS = ['created', '-created', 'scans', '-scans'] as const;
export type CodeSort = (typeof CODE_SORTS)[number];

const ORDER_OF_SORT: Record<CodeSort, CodeOrder> = {
  created: 'oldest',
  '-created': 'newest',
  scans: 'least-scanned',
  '-scans': 'most-scanned',
};

export async function listCodes(
  deps: Pick<DynamicCodeDeps, 'codes' | 'domains'>,
  accountId: string,
  page: CodeListQuery,
): Promise<CodePage> {
  const limit = page.limit ?? PAGE_SIZE.default;
  const order = ORDER_OF_SORT[page.sort ?? '-created'];
  const byScans = order === 'most-scanned' || order === 'least-scanned';
  const after =
    page.cursor === undefined ? undefined : byScans ? decodeCountCursor(page.cursor) : decodeCursor(page.cursor);
  let domainId: string | undefined;
  if (page.domain !== undefined) {
    const domain = deps.domains ? await accountDomain(deps.domains, accountId, page.domain) : undefined;
    if (!domain) throw invalidField('domain', 'no custom domain with this id or hostname on your account');
    domainId = domain.id;
  }
  const query = {
    after,
    order,
    text: page.q?.toLowerCase(),
    status: page.status,
    domainId,
    slug: page.slug,
  };
  // One more than asked: whether it exists says whether there is a next page.
  const items = await deps.codes.list(accountId, { ...query, limit: limit + 1 });
  const more = items.length > limit;
  const shown = items.slice(0, limit);
  const last = shown.at(-1)!;
  return { items: shown, nextCursor: more ? (byScans ? encodeCountCursor(last) : encodeCursor(last)) : null };
}

export async function getCode(
  deps: Pick<DynamicCodeDeps, 'codes'>,
  accountId: string,
  id: string,
): Promise<DynamicCode> {
  const code = await deps.codes.get(accountId, id);
  if (!code) throw notFound();
  return code;
}

export interface CodeUpdate extends CampaignFields, VanityFields {
  target?: string | undefined;
  name?: string | null | undefined;
  status?: OwnerStatus | undefined;
}

/**
 * The vanity a change asks for: undefined (unchanged), null (back to the random slug only), or where the code moves.
 */
async function vanityChange(
  deps: DynamicCodeDeps,
  accountId: string,
  id: string,
  update: VanityFields,
): Promise<Vanity | null | undefined> {
  if (update.domain === null) {
    if (update.slug !== undefined)
      throw invalidField('slug', 'a code leaving its custom domain has no slug of its own');
    return null;
  }
  if (update.domain !== undefined) return vanityOf(deps, accountId, update.domain, update.slug);
  if (update.slug === undefined) return undefined;
  // A new slug on the domain the code is on.
  const current = await deps.codes.get(accountId, id);
  if (!current) throw notFound();
  if (!current.vanity) throw invalidField('slug', 'needs `domain`: a slug of its own exists only on a custom domain');
  return vanityOf(deps, accountId, current.vanity.domainId, update.slug);
}

export async function updateCode(
  deps: DynamicCodeDeps,
  accountId: string,
  id: string,
  update: CodeUpdate,
): Promise<DynamicCode> {
  const vanity = await vanityChange(deps, accountId, id, update);
  const routing = await routingChanges(update);
  // A target given alone sends the default to it again: the split it had ends.
  if (update.target !== undefined && update.split === undefined) routing.split = null;
  const changes = {
    target: defaultTarget(update),
    name: update.name === undefined ? undefined : checkedName(update.name),
    status: update.status,
    routing,
    ...(vanity === undefined ? {} : { vanity }),
  };
  const updated = await deps.codes.update(accountId, id, changes, deps.clock());
  if (updated === 'vanity_taken') throw slugTaken(vanity!);
  if (updated === 'disabled')
    throw new ApiError(
      'code_disabled',
      'this code was disabled by an operator and cannot be changed; it can still be deleted',
    );
  if (!updated) throw notFound();
  return updated;
}

export async function deleteCode(deps: DynamicCodeDeps, accountId: string, id: string): Promise<void> {
  if (!(await deps.codes.remove(accountId, id, deps.clock()))) throw notFound();
}

/** Every code of the account, newest first (operators: `qrm codes list`), read a page at a time. */
export async function allCodes(deps: Pick<DynamicCodeDeps, 'codes'>, accountId: string): Promise<DynamicCode[]> {
  const codes: DynamicCode[] = [];
  let after: CodeCursor | undefined;
  for (;;) {
    const page = await deps.codes.list(accountId, { limit: PAGE_SIZE.max, after });
    codes.push(...page);
    if (page.length < PAGE_SIZE.max) return codes;
    const last = page.at(-1)!;
    after = { createdAt: last.createdAt, id: last.id };
  }
}

/** Operators (abuse): the code answers 410 from now on, on every instance, and its owner cannot re-enable it. */
export async function disableCode(deps: DynamicCodeDeps, slug: string, reason: string): Promise<DynamicCode> {
  if (!SLUG_PATTERN.test(slug)) throw invalidField('slug', 'not a dynamic-code slug (8 letters and digits)');
  const trimmed = reason.trim();
  if (trimmed.length === 0 || trimmed.length > DISABLED_REASON_MAX_LENGTH)
    throw invalidField('reason', `1 to ${DISABLED_REASON_MAX_LENGTH} characters`);
  const disabled = await deps.codes.disableBySlug(slug, trimmed, deps.clock());
  if (!disabled) throw new ApiError('not_found', `no dynamic code with slug ${slug}`);
  return disabled;
}
