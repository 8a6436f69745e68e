// A dynamic code's campaign settings as the portal's form holds them (flat fields), both ways, checked by the API
// schema.
import { z } from 'zod';
import { ROUTING_LIMITS, type CodeRouting, type RuleCondition, type SplitArm } from '../../domain/code-routing.js';
import { TARGET_MAX_LENGTH } from '../../domain/dynamic-code.js';
import { ApiError, type FieldProblem } from '../../domain/errors.js';
import { PASSWORD_LENGTH } from '../../domain/password-hash.js';
import { DEVICE_CLASSES, type DeviceClass } from '../../domain/scan.js';
import type { CampaignFields } from '../../services/dynamic-codes.js';
import { UpdateCodeBody } from '../api/v1/codes.schema.js';

/** Rows of the rules table: every rule the code has, one empty row to add another, never more than the API allows. */
export const RULE_ROWS = ROUTING_LIMITS.rules;

const text = (max: number) => z.string().max(max).optional();
/** A checkbox group posts one value or several. */
const checkboxes = z
  .union([z.enum(DEVICE_CLASSES), z.array(z.enum(DEVICE_CLASSES)).max(DEVICE_CLASSES.length)])
  .optional();
/** `<input type=datetime-local>`: minutes, or seconds, without a zone (the form says UTC). */
const LOCAL_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?$/;
const QUERY_TEXT = (ROUTING_LIMITS.queryName + ROUTING_LIMITS.queryValue + 2) * ROUTING_LIMITS.queryConditions;
const LANGUAGE_TEXT = (ROUTING_LIMITS.languageTag + 2) * ROUTING_LIMITS.languages;
/** A split as the form writes it: one `URL weight` per line. */
const SPLIT_TEXT = (TARGET_MAX_LENGTH + 6) * ROUTING_LIMITS.splitArms.max;

const ruleFields = (i: number) => ({
  [`rule${i}Target`]: text(TARGET_MAX_LENGTH),
  [`rule${i}Split`]: text(SPLIT_TEXT),
  [`rule${i}Device`]: checkboxes,
  [`rule${i}Language`]: text(LANGUAGE_TEXT),
  [`rule${i}After`]: text(32),
  [`rule${i}Before`]: text(32),
  [`rule${i}Query`]: text(QUERY_TEXT),
});

/** The form as posted: every field it has, nothing else (an unknown field is a 400, as in the API). */
export const CampaignForm = z.strictObject({
  split: text(SPLIT_TEXT),
  expiresAt: text(32),
  maxScans: text(16),
  expiredTarget: text(TARGET_MAX_LENGTH),
  forwardQuery: z.literal('on').optional(),
  utmSource: text(ROUTING_LIMITS.utmValue),
  utmMedium: text(ROUTING_LIMITS.utmValue),
  utmCampaign: text(ROUTING_LIMITS.utmValue),
  utmTerm: text(ROUTING_LIMITS.utmValue),
  utmContent: text(ROUTING_LIMITS.utmValue),
  password: text(PASSWORD_LENGTH.max),
  removePassword: z.literal('on').optional(),
  ...Object.assign({}, ...Array.from({ length: RULE_ROWS }, (_, i) => ruleFields(i))),
  _csrf: z.string().optional(),
});
/** The parsed form (its shape checked by CampaignForm). */
export type CampaignFormBody = Record<string, unknown>;

/** One rule row as the template draws it. */
export interface RuleRow {
  target: string;
  /** `URL weight` lines; empty when the rule sends to `target`. */
  split: string;
  device: DeviceClass[];
  language: string;
  after: string;
  before: string;
  query: string;
}

/** The form's values, from the code's routing or from a refused post (so nothing typed is lost). */
export interface CampaignFormValues {
  expiresAt: string;
  maxScans: string;
  expiredTarget: string;
  forwardQuery: boolean;
  utm: { source: string; medium: string; campaign: string; term: string; content: string };
  passwordSet: boolean;
  /** The default's split as `URL weight` lines, or ''. */
  split: string;
  rules: RuleRow[];
}

/** `2026-12-31T23:59:00.000Z` → `2026-12-31T23:59` (seconds kept when there are any), as datetime-local shows it. */
function localInstant(iso: string | null | undefined): string {
  if (!iso) return '';
  const shown = iso.slice(0, 19);
  return shown.endsWith(':00') ? shown.slice(0, 16) : shown;
}

/** `https://a.example 50` per line. */
function splitText(split: readonly SplitArm[] | null | undefined): string {
  return (split ?? []).map((arm) => `${arm.target} ${arm.weight}`).join('\n');
}

/** The lines back as arms; a weight that is not a whole number is passed on for the schema to refuse, named. */
function splitOf(text: string): Array<{ target: string; weight: number }> {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [target = '', weight = ''] = line.split(/\s+/);
      return { target, weight: /^\d+$/.test(weight) ? Number(weight) : Number.NaN };
    });
}

const emptyRule = (): RuleRow => ({
  target: '',
  split: '',
  device: [],
  language: '',
  after: '',
  before: '',
  query: '',
});

function withBlankRow(rules: RuleRow[]): RuleRow[] {
  return rules.length < RULE_ROWS ? [...rules, emptyRule()] : rules;
}

export function campaignValues(routing: CodeRouting): CampaignFormValues {
  return {
    expiresAt: localInstant(routing.expiresAt),
    maxScans: routing.maxScans === null ? '' : String(routing.maxScans),
    expiredTarget: routing.expiredTarget ?? '',
    forwardQuery: routing.forwardQuery,
    utm: {
      source: routing.utm?.source ?? '',
      medium: routing.utm?.medium ?? '',
      campaign: routing.utm?.campaign ?? '',
      term: routing.utm?.term ?? '',
      content: routing.utm?.content ?? '',
    },
    passwordSet: routing.passwordHash !== null,
    split: splitText(routing.split),
    rules: withBlankRow(
      routing.rules.map((rule) => ({
        target: rule.target ?? '',
        split: splitText(rule.split),
        device: rule.if.device ?? [],
        language: (rule.if.language ?? []).join(', '),
        after: localInstant(rule.if.after),
        before: localInstant(rule.if.before),
        query: rule.if.query ? new URLSearchParams(rule.if.query).toString() : '',
      })),
    ),
  };
}

const field = (body: CampaignFormBody, name: string): string => {
  const value: unknown = body[name];
  return typeof value === 'string' ? value.trim() : '';
};
const devicesOf = (value: unknown): DeviceClass[] =>
  [value].flat().filter((device): device is DeviceClass => DEVICE_CLASSES.includes(device as DeviceClass));

function ruleRowsOf(body: CampaignFormBody): RuleRow[] {
  return Array.from({ length: RULE_ROWS }, (_, i) => ({
    target: field(body, `rule${i}Target`),
    split: field(body, `rule${i}Split`),
    device: devicesOf(body[`rule${i}Device`]),
    language: field(body, `rule${i}Language`),
    after: field(body, `rule${i}After`),
    before: field(body, `rule${i}Before`),
    query: field(body, `rule${i}Query`),
  })).filter(
    (row) =>
      row.target !== '' ||
      row.split !== '' ||
      row.device.length > 0 ||
      row.language !== '' ||
      row.after !== '' ||
      row.before !== '' ||
      row.query !== '',
  );
}

/** What a refused post shows again: the values as typed (never the password). */
export function postedValues(body: CampaignFormBody, passwordSet: boolean): CampaignFormValues {
  return {
    expiresAt: field(body, 'expiresAt'),
    maxScans: field(body, 'maxScans'),
    expiredTarget: field(body, 'expiredTarget'),
    forwardQuery: body.forwardQuery === 'on',
    utm: {
      source: field(body, 'utmSource'),
      medium: field(body, 'utmMedium'),
      campaign: field(body, 'utmCampaign'),
      term: field(body, 'utmTerm'),
      content: field(body, 'utmContent'),
    },
    passwordSet,
    split: field(body, 'split'),
    rules: withBlankRow(ruleRowsOf(body)),
  };
}

/** A datetime-local value as the API's instant, in UTC; anything else is passed on for the schema to refuse. */
function instantOf(value: string): string {
  return LOCAL_INSTANT.test(value) ? `${value.length === 16 ? `${value}:00` : value}Z` : value;
}

function conditionOf(row: RuleRow): RuleCondition {
  const languages = row.language
    .split(/[\s,]+/)
    .map((tag) => tag.trim())
    .filter(Boolean);
  const query = row.query === '' ? undefined : Object.fromEntries(new URLSearchParams(row.query));
  return {
    ...(row.device.length > 0 ? { device: row.device } : {}),
    ...(languages.length > 0 ? { language: languages } : {}),
    ...(row.after ? { after: instantOf(row.after) } : {}),
    ...(row.before ? { before: instantOf(row.before) } : {}),
    ...(query ? { query } : {}),
  };
}

/** Form field names for the API's paths, so a problem names what the user sees. */
function formFieldOf(path: PropertyKey[]): string {
  const [head, index, ...rest] = path.map(String);
  if (head === 'rules' && index !== undefined)
    return `rule ${Number(index) + 1}${rest.length > 0 ? ` ${rest.filter((p) => p !== 'if').join('.')}` : ''}`;
  if (head === 'utm') return `UTM ${index ?? ''}`.trim();
  return path.map(String).join('.');
}

/**
 * The posted form as the API's change of campaign fields: empty fields clear (null), an empty password keeps the
 * one set, rule rows left blank are dropped. Refused (400 `invalid_request`, each problem named) exactly where
 * `PATCH /codes/{id}` would refuse the same values.
 */
export function campaignChange(body: CampaignFormBody): CampaignFields {
  const maxScans = field(body, 'maxScans');
  const utm = {
    source: field(body, 'utmSource'),
    medium: field(body, 'utmMedium'),
    campaign: field(body, 'utmCampaign'),
  };
  const term = field(body, 'utmTerm');
  const content = field(body, 'utmContent');
  const utmGiven = Object.values(utm).some(Boolean) || term !== '' || content !== '';
  const password = typeof body.password === 'string' ? body.password : '';
  const change = {
    expiresAt: field(body, 'expiresAt') === '' ? null : instantOf(field(body, 'expiresAt')),
    maxScans: maxScans === '' ? null : /^\d+$/.test(maxScans) ? Number(maxScans) : maxScans,
    expiredTarget: field(body, 'expiredTarget') || null,
    forwardQuery: body.forwardQuery === 'on',
    utm: utmGiven ? { ...utm, ...(term ? { term } : {}), ...(content ? { content } : {}) } : null,
    split: field(body, 'split') === '' ? null : splitOf(field(body, 'split')),
    rules: ruleRowsOf(body).map((row) => ({
      if: conditionOf(row),
      ...(row.target !== '' || row.split === '' ? { target: row.target } : {}),
      ...(row.split === '' ? {} : { split: splitOf(row.split) }),
    })),
    ...(body.removePassword === 'on' ? { password: null } : password !== '' ? { password } : {}),
  };
  const parsed = UpdateCodeBody.safeParse(change);
  if (parsed.success) return parsed.data;
  const problems: FieldProblem[] = parsed.error.issues.map((issue) => ({
    field: formFieldOf(issue.path),
    detail: issue.message,
  }));
  throw new ApiError('invalid_request', problems.map((p) => `${p.field}: ${p.detail}`).join('; '), {
    fields: problems,
  });
}
