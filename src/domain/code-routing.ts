// A dynamic code's campaign options (redirect rules, expiry, scan limit, query forwarding, UTM tags) and how a scan is
// routed by them.
import { targetProblem } from './dynamic-code.js';
import type { FieldProblem } from './errors.js';
import type { DeviceClass, ScanPlace } from './scan.js';

export const ROUTING_LIMITS = {
  rules: 20,
  /** Languages, and query conditions, per rule. */
  languages: 20,
  queryConditions: 10,
  /** Countries, regions and cities per rule. */
  places: 50,
  placeName: 100,
  queryName: 64,
  queryValue: 256,
  languageTag: 35,
  utmValue: 200,
  maxScans: 1_000_000_000,
  /** Arms of one split, and the whole their integer weights share. */
  splitArms: { min: 2, max: 10 },
  splitWeightTotal: 100,
} as const;

export interface RuleCondition {
  device?: DeviceClass[] | undefined;
  /** BCP 47 tags as given (`pt`, `pt-BR`); `pt` also matches `pt-BR`. */
  language?: string[] | undefined;
  /** ISO 8601 instants, normalised to UTC `toISOString()` form. */
  after?: string | undefined;
  before?: string | undefined;
  query?: Record<string, string> | undefined;
  /** ISO 3166-1 alpha-2 codes, upper case. */
  country?: string[] | undefined;
  /** Region (first subdivision) names, matched without regard to case; need a city database (GEOIP_CITY_DB). */
  region?: string[] | undefined;
  /** City names, matched without regard to case; need a city database (GEOIP_CITY_DB). */
  city?: string[] | undefined;
}

/** One arm of a weighted split: this share (out of 100) of the visitors goes to `target`. */
export interface SplitArm {
  target: string;
  weight: number;
}

/** Sends a scan to `target`, or to one arm of `split` (exactly one of the two is set). */
export interface RuleDestination {
  target?: string | undefined;
  split?: SplitArm[] | undefined;
}

export interface RedirectRule extends RuleDestination {
  if: RuleCondition;
}

export interface Utm {
  source: string;
  medium: string;
  campaign: string;
  term?: string | undefined;
  content?: string | undefined;
}

/** Everything a scan is routed by beside `target`; what the redirect caches with the slug. */
export interface CodeRouting {
  rules: RedirectRule[];
  /** Scans no rule takes are split across these arms instead of going to the code's `target` (its first arm's). */
  split: SplitArm[] | null;
  expiresAt: string | null;
  maxScans: number | null;
  expiredTarget: string | null;
  forwardQuery: boolean;
  utm: Utm | null;
  /** `scrypt$…` (see password-hash); never leaves the service. */
  passwordHash: string | null;
}

export const NO_ROUTING: CodeRouting = Object.freeze({
  rules: [],
  split: null,
  expiresAt: null,
  maxScans: null,
  expiredTarget: null,
  forwardQuery: false,
  utm: null,
  passwordHash: null,
}) as CodeRouting;

/** A stored routing value (JSON, possibly from before a field existed) as a complete CodeRouting. */
export function routingFrom(stored: Partial<CodeRouting> | null | undefined): CodeRouting {
  return stored ? { ...NO_ROUTING, ...stored } : NO_ROUTING;
}

const LANGUAGE_TAG = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8}){0,4}$/;
/** ISO 3166-1 alpha-2 (assigned or user-assigned: a database may use XK). */
export const COUNTRY_CODE = /^[A-Z]{2}$/;

/** Problems of the rules, limits and targets, each naming its field (`rules[2].target`), beside zod's shape checks. */
export function routingProblems(
  routing: Pick<CodeRouting, 'rules' | 'expiredTarget'> & { split?: SplitArm[] | null },
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (routing.split) problems.push(...splitProblems(routing.split, 'split'));
  routing.rules.forEach((rule, i) => {
    const at = `rules[${i}]`;
    if ((rule.target === undefined) === (rule.split === undefined)) {
      problems.push({ field: `${at}.target`, detail: 'give either target or split (not both)' });
    } else if (rule.split !== undefined) {
      problems.push(...splitProblems(rule.split, `${at}.split`));
    } else {
      const targetIssue = targetProblem(rule.target!);
      if (targetIssue) problems.push({ field: `${at}.target`, detail: targetIssue });
    }
    const condition = rule.if;
    const named = [
      condition.device,
      condition.language,
      condition.after,
      condition.before,
      condition.query,
      condition.country,
      condition.region,
      condition.city,
    ];
    if (named.every((c) => c === undefined)) {
      problems.push({
        field: `${at}.if`,
        detail: 'must name at least one condition (device, language, after, before, query, country, region, city)',
      });
    }
    for (const code of condition.country ?? []) {
      if (!COUNTRY_CODE.test(code))
        problems.push({
          field: `${at}.if.country`,
          detail: `"${code}" is not an ISO 3166-1 alpha-2 country code such as BR`,
        });
    }
    for (const tag of condition.language ?? []) {
      if (!LANGUAGE_TAG.test(tag))
        problems.push({ field: `${at}.if.language`, detail: `"${tag}" is not a language tag such as pt or pt-BR` });
    }
    if (condition.after !== undefined && condition.before !== undefined && condition.after >= condition.before) {
      problems.push({ field: `${at}.if.before`, detail: 'must be later than after' });
    }
    if (condition.query && Object.keys(condition.query).some((name) => name.length === 0)) {
      problems.push({ field: `${at}.if.query`, detail: 'parameter names must not be empty' });
    }
  });
  if (routing.expiredTarget !== null) {
    const issue = targetProblem(routing.expiredTarget);
    if (issue) problems.push({ field: 'expiredTarget', detail: issue });
  }
  return problems;
}

/** Problems of one split: 2–10 arms, integer weights of at least 1 summing to 100, each target a valid one. */
export function splitProblems(split: readonly SplitArm[], at: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const { min, max } = ROUTING_LIMITS.splitArms;
  if (split.length < min || split.length > max) problems.push({ field: at, detail: `between ${min} and ${max} arms` });
  split.forEach((arm, i) => {
    const issue = targetProblem(arm.target);
    if (issue) problems.push({ field: `${at}[${i}].target`, detail: issue });
  });
  const total = split.reduce((sum, arm) => sum + arm.weight, 0);
  if (total !== ROUTING_LIMITS.splitWeightTotal) {
    problems.push({
      field: at,
      detail: `the weights must add up to ${ROUTING_LIMITS.splitWeightTotal} (they add up to ${total})`,
    });
  }
  return problems;
}

/** What the redirect knows of one scan. */
export interface ScanContext {
  at: Date;
  device: DeviceClass;
  acceptLanguage: string | undefined;
  /** The scan's query string without `?` ('' when none). */
  query: string;
  /**
   * Where this visitor falls in every split, in [0, 100): the same for one visitor (address and user agent) on one
   * code all day (see split-arm.ts). Read only when a split decides the scan.
   */
  splitPoint: () => number;
  /** Where the scan came from; null when the address could not be placed. */
  place: ScanPlace | null;
}

const ACCEPT_LANGUAGE_SCAN = 512;
const ACCEPT_LANGUAGE_ENTRIES = 32;
const QUALITY = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i;

/**
 * The browser's most preferred language (highest q above 0, the first of equals), lower case; undefined when none is
 * named.
 */
export function preferredLanguage(acceptLanguage: string | undefined): string | undefined {
  if (!acceptLanguage) return undefined;
  let best: string | undefined;
  let bestQ = 0;
  const entries = acceptLanguage.slice(0, ACCEPT_LANGUAGE_SCAN).split(',', ACCEPT_LANGUAGE_ENTRIES);
  for (const entry of entries) {
    const [tag = '', ...params] = entry.split(';');
    const language = tag.trim().toLowerCase();
    if (language === '' || language === '*' || !LANGUAGE_TAG.test(language)) continue;
    let q = 1;
    for (const param of params) {
      const match = QUALITY.exec(param);
      if (match) q = Number(match[1]);
    }
    if (q > bestQ) {
      best = language;
      bestQ = q;
    }
  }
  return best;
}

function languageMatches(wanted: readonly string[], preferred: string | undefined): boolean {
  if (preferred === undefined) return false;
  return wanted.some((tag) => {
    const lower = tag.toLowerCase();
    return preferred === lower || preferred.startsWith(`${lower}-`);
  });
}

function queryMatches(wanted: Record<string, string>, params: URLSearchParams): boolean {
  return Object.entries(wanted).every(([name, value]) => params.getAll(name).includes(value));
}

/** Lazily parsed parts of a scan: most codes need neither. */
class ParsedScan {
  #language: string | undefined | null = null;
  #params: URLSearchParams | undefined;
  constructor(readonly scan: ScanContext) {}
  get language(): string | undefined {
    if (this.#language === null) this.#language = preferredLanguage(this.scan.acceptLanguage);
    return this.#language;
  }
  get params(): URLSearchParams {
    this.#params ??= new URLSearchParams(this.scan.query);
    return this.#params;
  }
}

function nameMatches(wanted: readonly string[], name: string | undefined): boolean {
  if (name === undefined) return false;
  const lower = name.toLowerCase();
  return wanted.some((w) => w.toLowerCase() === lower);
}

function placeHolds(condition: RuleCondition, place: ScanPlace | null): boolean {
  if (condition.country && !(place !== null && condition.country.includes(place.country))) return false;
  if (condition.region && !nameMatches(condition.region, place?.region)) return false;
  if (condition.city && !nameMatches(condition.city, place?.city)) return false;
  return true;
}

function conditionHolds(condition: RuleCondition, scan: ParsedScan): boolean {
  if (condition.device && !condition.device.includes(scan.scan.device)) return false;
  if (!placeHolds(condition, scan.scan.place)) return false;
  const at = scan.scan.at.getTime();
  if (condition.after !== undefined && at < Date.parse(condition.after)) return false;
  if (condition.before !== undefined && at >= Date.parse(condition.before)) return false;
  if (condition.language && !languageMatches(condition.language, scan.language)) return false;
  if (condition.query && !queryMatches(condition.query, scan.params)) return false;
  return true;
}

/** True when the code is past `expiresAt` at this instant (maxScans is counted by the ScanAllowance port). */
export function isExpired(routing: CodeRouting, at: Date): boolean {
  return routing.expiresAt !== null && at.getTime() >= Date.parse(routing.expiresAt);
}

/** Where a scan goes before its decoration, and the split arm that chose it (`default:1`, `rules[2]:0`), if one did. */
interface Chosen {
  target: string;
  arm: string | undefined;
}

/** Where a scan goes: the chosen target and arm, and how that target is decorated for this scan. */
export interface ScanRoute extends Chosen {
  /**
   * True when the scan's own query is forwarded, so the decorated target differs scan by scan; false when it depends
   * on the code alone, one decoration per target for every scan of that code version.
   */
  perScan: boolean;
  /** The chosen target with the scan's query (forwardQuery) and the UTM tags appended. */
  decorated(): string;
}

/** The arm whose share of [0, 100) holds the point, the arms laid out in their order. */
function armAt(split: readonly SplitArm[], point: number): number {
  let upTo = 0;
  for (let i = 0; i < split.length; i++) {
    upTo += split[i]!.weight;
    if (point < upTo) return i;
  }
  return split.length - 1;
}

function destination(where: RuleDestination, fallback: string, name: string, scan: ScanContext): Chosen {
  if (!where.split) return { target: where.target ?? fallback, arm: undefined };
  const arm = armAt(where.split, scan.splitPoint());
  return { target: where.split[arm]!.target, arm: `${name}:${arm}` };
}

/**
 * The first rule whose every condition holds, else the code's default (its split, or its target); its decoration (the
 * scan's query and the UTM tags) is left to `decorated()`, which a caller may remember per target when not `perScan`.
 */
export function scanRoute(routing: CodeRouting, target: string, scan: ScanContext): ScanRoute {
  const parsed = new ParsedScan(scan);
  const index = routing.rules.findIndex((r) => conditionHolds(r.if, parsed));
  const chosen =
    index === -1
      ? destination({ target, split: routing.split ?? undefined }, target, 'default', scan)
      : destination(routing.rules[index]!, target, `rules[${index}]`, scan);
  return {
    target: chosen.target,
    arm: chosen.arm,
    perScan: routing.forwardQuery && scan.query !== '',
    decorated: () => decoratedTarget(routing, chosen.target, parsed),
  };
}

/** The expired target, decorated like any other. */
export function expiredTargetOf(routing: CodeRouting, scan: ScanContext): string | undefined {
  return routing.expiredTarget === null
    ? undefined
    : decoratedTarget(routing, routing.expiredTarget, new ParsedScan(scan));
}

const UTM_FIELDS = ['source', 'medium', 'campaign', 'term', 'content'] as const;

/**
 * Appends parameters the target does not carry yet, leaving its own query exactly as written (no re-encoding) and its
 * fragment last: the scan's query first (forwardQuery), then the UTM tags; a name already there is never repeated.
 */
function decoratedTarget(routing: CodeRouting, target: string, scan: ParsedScan): string {
  const forward = routing.forwardQuery && scan.scan.query !== '';
  if (!forward && routing.utm === null) return target;
  const hashAt = target.indexOf('#');
  const head = hashAt === -1 ? target : target.slice(0, hashAt);
  const fragment = hashAt === -1 ? '' : target.slice(hashAt);
  const present = new Set(new URL(head).searchParams.keys());
  const added: string[] = [];
  const add = (name: string, value: string) => {
    if (present.has(name)) return;
    present.add(name);
    added.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  };
  if (forward) for (const [name, value] of scan.params) add(name, value);
  if (routing.utm) {
    for (const field of UTM_FIELDS) {
      const value = routing.utm[field];
      if (value !== undefined) add(`utm_${field}`, value);
    }
  }
  if (added.length === 0) return target;
  const separator = !head.includes('?') ? '?' : head.endsWith('?') || head.endsWith('&') ? '' : '&';
  return `${head}${separator}${added.join('&')}${fragment}`;
}
