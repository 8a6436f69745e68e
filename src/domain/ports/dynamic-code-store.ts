// Port: the system of record for dynamic codes (what a slug points at, and who owns it).
import type { CodeRouting } from '../code-routing.js';
import type { Vanity } from '../custom-domain.js';
import type { CodeStatus, DynamicCode, OwnerStatus, SlugTarget } from '../dynamic-code.js';

export interface NewDynamicCode {
  accountId: string;
  slug: string;
  target: string;
  name: string | null;
  routing: CodeRouting;
  /**
   * A slug of its own on one of the account's custom domains (the caller has checked the domain is the account's and
   * active).
   */
  vanity?: Vanity | undefined;
  createdAt: Date;
}

export interface CodeChanges {
  target?: string | undefined;
  name?: string | null | undefined;
  status?: OwnerStatus | undefined;
  /**
   * The routing fields to replace; those absent keep their value (merged inside the store's write, so concurrent
   * changes of different fields both land).
   */
  routing?: Partial<CodeRouting> | undefined;
  /** Moves the code onto a custom domain slug, or (null) back to its random slug only. */
  vanity?: Vanity | null | undefined;
}

/** Position after the last code of a page (in the page's order): by creation time, or by all-time scans; then by id. */
export type CodeCursor = { createdAt: Date; id: string } | { scans: number; id: string };

export type CodeOrder = 'newest' | 'oldest' | 'most-scanned' | 'least-scanned';

/** Which codes a list keeps (all given conditions hold) and in which order. */
export interface CodeQuery {
  limit: number;
  after?: CodeCursor | undefined;
  /**
   * `newest` (default): created_at then id, descending; `oldest`: both ascending; `most-scanned`: scans then id,
   * descending; `least-scanned`: both ascending. The cursor is of the same kind as the order.
   */
  order?: CodeOrder | undefined;
  /** Lower-case text found, in any case, in the name, the target, the slug or the custom-domain slug. */
  text?: string | undefined;
  status?: CodeStatus | undefined;
  /** The custom domain's id; null: codes on no custom domain. */
  domainId?: string | null | undefined;
  /** The slug exactly: the random one or the one on a custom domain. */
  slug?: string | undefined;
}

/** What `update` answers: the code as changed, `disabled` or `vanity_taken` (nothing changed), or undefined. */
export type CodeUpdate = DynamicCode | 'disabled' | 'vanity_taken' | undefined;

/** What `createWithinLimit` answers: the code stored, or why nothing was. */
export type CodeCreation = DynamicCode | 'limit_reached' | 'slug_taken' | 'vanity_taken';

/** What `createManyWithinLimit` answers: every code stored (in input order), or why none was. */
export type CodesCreation = DynamicCode[] | 'limit_reached' | 'slug_taken';

/**
 * Contract (test/contracts/dynamic-code-store.contract.ts):
 * - `createWithinLimit` is atomic: under any concurrency an account never holds more than `maxCodes`
 *   codes that are not deleted; past it, `limit_reached` and nothing stored. A taken slug is `slug_taken`.
 * - every read and write that names a code also names its account (tenants never see each other's
 *   codes); only `findBySlug` and `disableBySlug` (the redirect, the operators) do not.
 * - deleted codes keep their slug: `findBySlug` answers them as `deleted`, and no new code gets the slug.
 * - a disabled code cannot be changed by its owner: `update` answers `disabled` and changes nothing.
 * - `list` keeps only the codes every given condition of its query matches; a page continues after its cursor in
 *   the same order, so paging with the same query visits each matching code once (while the scan counts it orders
 *   by stay as they are).
 * - a code's `scans` is the sum of its days in the scan ledger of the same deployment, kept as the ledger is written.
 * - `createManyWithinLimit` is all or nothing: every code is stored (answered in input order) or none is
 *   (`limit_reached` when the account's codes plus these would pass `maxCodes`, `slug_taken` when any slug is taken).
 * - a vanity slug is unique per hostname among codes that are not deleted: `createWithinLimit` and `update` answer
 *   `vanity_taken` and store nothing when another code holds it; deleting a code frees its vanity slug.
 */
export interface DynamicCodeStore {
  createWithinLimit(input: NewDynamicCode, maxCodes: number): Promise<CodeCreation>;
  /**
   * A batch's codes, all of them or none (one account's; the limit is checked for the lot at once); none with a vanity
   * slug.
   */
  createManyWithinLimit(inputs: readonly NewDynamicCode[], maxCodes: number): Promise<CodesCreation>;
  /** The account's codes that are not deleted and match the query, in its order, after its cursor. */
  list(accountId: string, query: CodeQuery): Promise<DynamicCode[]>;
  /** How many codes the account holds (not deleted): what the plan limit counts. */
  count(accountId: string): Promise<number>;
  get(accountId: string, id: string): Promise<DynamicCode | undefined>;
  update(accountId: string, id: string, changes: CodeChanges, at: Date): Promise<CodeUpdate>;
  /** Deletes (the slug stays reserved); false when the account has no such code. */
  remove(accountId: string, id: string, at: Date): Promise<boolean>;
  findBySlug(slug: string): Promise<SlugTarget | undefined>;
  /** The code at `https://<hostname>/<slug>` (a scan on a custom domain); deleted codes are not found there. */
  findByVanity(hostname: string, slug: string): Promise<SlugTarget | undefined>;
  /** How many codes that are not deleted live on the domain (a domain is deleted only when none does). */
  countOnDomain(domainId: string): Promise<number>;
  /** The sweeps: every code, deleted ones too (their scans stay), by id after `afterId`, at most `limit`. */
  codesById(afterId: string | undefined, limit: number): Promise<Array<{ id: string; accountId: string }>>;
  /** Operators: disables whatever the owner does; undefined for an unknown slug. */
  disableBySlug(slug: string, reason: string, at: Date): Promise<DynamicCode | undefined>;
}

export type { CodeStatus };
