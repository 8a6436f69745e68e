// Schemas of the dynamic-code endpoints: requests as validated and responses as serialised, documented in OpenAPI from
// the same source.
import { z } from 'zod';
import { ROUTING_LIMITS } from '../../../domain/code-routing.js';
import { PASSWORD_LENGTH } from '../../../domain/password-hash.js';
import {
  CODE_NAME_MAX_LENGTH,
  CODE_STATUSES,
  OWNER_STATUSES,
  TARGET_MAX_LENGTH,
  type DynamicCode,
} from '../../../domain/dynamic-code.js';
import { OUTPUT_FORMATS } from '../../../domain/plan-catalogue.js';
import { ERROR_CORRECTION_LEVELS, HEX_COLOUR, SIZE_LIMITS } from '../../../domain/render-options.js';
import { DEVICE_CLASSES } from '../../../domain/scan.js';
import { HOURLY_MAX_DAYS, STATS_INTERVALS, TOP_CITIES } from '../../../services/scan-stats.js';
import { HOSTNAME_MAX_LENGTH, VANITY_SLUG_LENGTH, VANITY_SLUG_PATTERN } from '../../../domain/custom-domain.js';
import { codeShortUrl } from '../../short-url.js';
import { CODE_SORTS } from '../../../services/dynamic-codes.js';
import type { ScanSummary } from '../../../services/scan-stats.js';
import { pageSchema, PageQueryFields } from './list-page.js';
import { FRAME_TEXT, FRAME_TEXT_MAX, LOGO_SCALE_LIMITS } from '../../../domain/branding.js';
import { BrandingFields, inkColour, pixelSide, PrintFields, quietZone } from './generate.schema.js';
import { label } from './label.js';

const target = z
  .string()
  .max(TARGET_MAX_LENGTH)
  .describe(`Where scans are sent: an absolute http(s) URL, at most ${TARGET_MAX_LENGTH} characters.`);
const name = label(CODE_NAME_MAX_LENGTH).describe('A label for you; never shown to people who scan.');

const instant = z.iso
  .datetime({ offset: true })
  .describe('ISO 8601 date and time with Z or an offset, e.g. `2026-12-31T23:59:59Z`.');

const placeNames = z
  .array(z.string().min(1).max(ROUTING_LIMITS.placeName))
  .min(1)
  .max(ROUTING_LIMITS.places)
  .optional();

const condition = z
  .strictObject({
    device: z
      .array(z.enum(DEVICE_CLASSES))
      .min(1)
      .max(DEVICE_CLASSES.length)
      .optional()
      .describe('Matches scans from these device classes.'),
    language: z
      .array(z.string().min(2).max(ROUTING_LIMITS.languageTag))
      .min(1)
      .max(ROUTING_LIMITS.languages)
      .optional()
      .describe(
        "Matches when the browser's most preferred language (`Accept-Language`, q-values honoured) is one of " +
          'these; `pt` also matches `pt-BR`, `pt-BR` only `pt-BR`.',
      ),
    after: instant.optional().describe('Matches scans at or after this instant.'),
    before: instant.optional().describe('Matches scans before this instant.'),
    query: z
      .record(z.string().min(1).max(ROUTING_LIMITS.queryName), z.string().max(ROUTING_LIMITS.queryValue))
      .refine((q) => Object.keys(q).length >= 1 && Object.keys(q).length <= ROUTING_LIMITS.queryConditions, {
        message: `between 1 and ${ROUTING_LIMITS.queryConditions} parameters`,
      })
      .optional()
      .describe("Matches when the scan's query string carries each of these parameters with exactly this value."),
    country: z
      .array(z.string().max(8))
      .min(1)
      .max(ROUTING_LIMITS.places)
      .optional()
      .describe(
        'Matches scans from these countries (ISO 3166-1 alpha-2 in upper case, e.g. `BR`), placed by the open ' +
          'database shipped with the service.',
      ),
    region: placeNames.describe(
      'Matches scans from these regions (states, provinces; any case). Needs a city database (`GEOIP_CITY_DB`).',
    ),
    city: placeNames.describe('Matches scans from these cities (any case). Needs a city database (`GEOIP_CITY_DB`).'),
  })
  .describe('Every condition named must hold (at least one must be named).');

const split = z
  .array(
    z
      .strictObject({
        target,
        weight: z
          .number()
          .int()
          .min(1)
          .max(ROUTING_LIMITS.splitWeightTotal)
          .describe('Share of the visitors, out of 100.'),
      })
      .meta({ id: 'SplitArm' }),
  )
  .min(ROUTING_LIMITS.splitArms.min)
  .max(ROUTING_LIMITS.splitArms.max)
  .describe(
    `A weighted split (A/B test): ${ROUTING_LIMITS.splitArms.min}–${ROUTING_LIMITS.splitArms.max} arms whose ` +
      `integer weights add up to ` +
      (`${ROUTING_LIMITS.splitWeightTotal}. A visitor (same address and user agent) keeps the arm they got for ` +
        `the whole UTC day; `) +
      'the address is never stored. The stats count scans per arm (`arms`).',
  );

const rule = z
  .strictObject({
    if: condition,
    target: target.optional().describe('Where scans this rule takes are sent (give this or `split`).'),
    split: split.optional().describe('Scans this rule takes are split across these arms (give this or `target`).'),
  })
  .meta({ id: 'RedirectRule' });
const rules = z
  .array(rule)
  .max(ROUTING_LIMITS.rules)
  .describe(
    `At most ${ROUTING_LIMITS.rules} rules, tried in order: the first whose conditions all hold sends the scan ` +
      `to its target; none: \`target\`.`,
  );

const utmValue = z.string().min(1).max(ROUTING_LIMITS.utmValue);
const utm = z
  .strictObject({
    source: utmValue,
    medium: utmValue,
    campaign: utmValue,
    term: utmValue.optional(),
    content: utmValue.optional(),
  })
  .meta({ id: 'Utm' })
  .describe(
    'Appended to every target (rules and expiredTarget included) as `utm_source`, `utm_medium`, …, unless the ' +
      'target already carries that parameter.',
  );

const expiresAt = instant.describe(
  'From this instant on the code is expired: scans go to `expiredTarget`, or get a 410 page.',
);
const maxScans = z
  .number()
  .int()
  .min(1)
  .max(ROUTING_LIMITS.maxScans)
  .describe(
    'Scans let through to a target while this limit is set; past it the code is expired (`expiredTarget`, or a ' +
      '410 page).',
  );
const expiredTarget = target.describe(
  'Where scans go once the code is past `expiresAt` or `maxScans` (302); without it they get a 410 page.',
);
const forwardQuery = z
  .boolean()
  .describe("Appends the scan's query parameters to the target (those the target does not already carry).");
const password = z
  .string()
  .min(PASSWORD_LENGTH.min)
  .max(PASSWORD_LENGTH.max)
  .describe(
    `Write-only, ${PASSWORD_LENGTH.min}–${PASSWORD_LENGTH.max} characters: a scan gets a small password form ` +
      `(401) and only the right password is redirected. Stored as a scrypt hash; never returned.`,
  );

const defaultSplit = split.describe(
  `${split.description} Here: scans no rule takes are split across these arms instead of all going to ` +
    `\`target\`, which is ` +
    ("then the first arm's target (give `target` or `split`; setting `target` alone ends the split). `null` " +
      'ends the split.'),
);

const campaignFields = {
  rules: rules.optional(),
  split: defaultSplit.nullable().optional(),
  expiresAt: expiresAt.nullable().optional(),
  maxScans: maxScans.nullable().optional(),
  expiredTarget: expiredTarget.nullable().optional(),
  forwardQuery: forwardQuery.optional(),
  utm: utm.nullable().optional(),
  password: password.nullable().optional(),
};

/**
 * A batch item's `dynamic`: a code's fields as POST /codes takes them, but the password (write-only, set per code with
 * PATCH).
 */
const { password: _password, ...campaignFieldsButPassword } = campaignFields;
export const BatchCodeFields = { target, name: name.nullable().optional(), ...campaignFieldsButPassword };

const createTarget = target.optional().describe(`${target.description} Required unless \`split\` is given.`);

const domain = z
  .string()
  .min(1)
  .max(HOSTNAME_MAX_LENGTH)
  .describe(
    'One of your active custom domains, by id (`dom_…`) or hostname (`go.example.com`); the code then lives at ' +
      '`https://<hostname>/<slug>` and needs `slug`.',
  );
const slug = z
  .string()
  .min(VANITY_SLUG_LENGTH.min)
  .max(VANITY_SLUG_LENGTH.max)
  .regex(VANITY_SLUG_PATTERN, 'must be 3–64 of a-z, 0-9, - and _')
  .describe(
    "With `domain`: the code's own path there, 3–64 of `a-z 0-9 - _`, unique per domain (taken: 409 `slug_taken`).",
  );

export const CreateCodeBody = z.strictObject({
  target: createTarget,
  name: name.nullable().optional(),
  ...campaignFields,
  domain: domain.optional(),
  slug: slug.optional(),
});

export const UpdateCodeBody = z
  .strictObject({
    target: target.optional(),
    name: name.nullable().optional(),
    status: z
      .enum(OWNER_STATUSES)
      .optional()
      .describe('`paused` codes answer scans with 410 until set `active` again.'),
    ...campaignFields,
    domain: domain
      .nullable()
      .optional()
      .describe(
        'Moves the code onto one of your active custom domains (with `slug`); `null` takes it off (its short ' +
          'URL is `/r/…` again).',
      ),
    slug: slug.optional().describe('A new slug on the custom domain the code is on (or, with `domain`, on that one).'),
  })
  .describe('Fields absent keep their value; `null` clears an optional field (`password: null` removes the password).');

export const CodeParams = z.object({ id: z.string().min(1).max(64).describe('The code id.') });

export const ListCodesQuery = z.strictObject({
  ...PageQueryFields,
  q: z.string().min(1).max(200).optional().describe('Codes whose name, target or slug contains this text (any case).'),
  status: z.enum(CODE_STATUSES).optional().describe('Codes in this status only.'),
  domain: z
    .string()
    .min(1)
    .max(HOSTNAME_MAX_LENGTH)
    .optional()
    .describe('Codes on this custom domain of yours, by id (`dom_…`) or hostname.'),
  slug: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('The code with this slug (its random one, or its own on a custom domain).'),
  sort: z
    .enum(CODE_SORTS)
    .optional()
    .describe(
      '`-created` (default): newest first; `created`: oldest first; `-scans`: most scanned (all time) first; ' +
        '`scans`: fewest first. ' +
        'Ties go by id. Keep it the same across pages: a cursor belongs to its sort.',
    ),
});

const colour = z.string().regex(HEX_COLOUR, 'must be #RRGGBB or #RRGGBBAA');

/** The generate options, as a query string (the content is the code's short URL). */
export const CodeImageQuery = z.strictObject({
  outputFormat: z
    .enum(OUTPUT_FORMATS)
    .default('png')
    .describe('Image format (default png); svg, pdf and eps need a paid plan.'),
  size: pixelSide(z.coerce.number()).describe(`Image side in pixels (default ${SIZE_LIMITS.default}).`),
  margin: quietZone(z.coerce.number()),
  errorCorrection: z.enum(ERROR_CORRECTION_LEVELS).optional().describe('Error correction level (default M).'),
  darkColor: inkColour
    .optional()
    .describe('Colour of dark modules (default #000000); `cmyk(c,m,y,k)` for pdf and eps.'),
  lightColor: inkColour.optional().describe('Background colour (default #FFFFFF); `cmyk(c,m,y,k)` for pdf and eps.'),
  sizeMm: z.coerce
    .number()
    .pipe(PrintFields.sizeMm.unwrap())
    .optional()
    .describe(PrintFields.sizeMm.description ?? ''),
  dpi: z.coerce
    .number()
    .pipe(PrintFields.dpi.unwrap())
    .optional()
    .describe(PrintFields.dpi.description ?? ''),
  eci: z
    .enum(['true', 'false'])
    .optional()
    .describe('`true`: text beyond ASCII as UTF-8 behind the ECI designator (a short URL is ASCII: no effect then).'),
  // The branding options of POST /generate, flat: the nested logo and frame as logoId/logoScale and
  // frameText/frameColor.
  moduleShape: BrandingFields.moduleShape,
  finderShape: BrandingFields.finderShape,
  finderColor: BrandingFields.finderColor,
  logoId: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('Id of one of your logos, drawn in the centre (as `logo.id` in POST /generate).'),
  logoScale: z.coerce
    .number()
    .min(LOGO_SCALE_LIMITS.min)
    .max(LOGO_SCALE_LIMITS.max)
    .optional()
    .describe(`Logo side as a share of the code's side (default ${LOGO_SCALE_LIMITS.default}); needs logoId.`),
  frameText: z
    .string()
    .min(1)
    .max(FRAME_TEXT_MAX)
    .regex(FRAME_TEXT, 'printable Latin-1 characters only')
    .optional()
    .describe('Caption under the code (as `frame.text`).'),
  frameColor: colour.optional().describe('Caption band colour (default darkColor); needs frameText.'),
  design: z
    .string()
    .max(64)
    .optional()
    .describe('A saved design of your account (`des_…`): its fields apply wherever this query does not set them.'),
});

export const StatsQuery = z.strictObject({
  from: z.string().max(10).optional().describe('First day, YYYY-MM-DD (UTC); default 29 days before `to`.'),
  to: z.string().max(10).optional().describe('Last day, YYYY-MM-DD (UTC); default today.'),
});

export const CodeStatsQuery = StatsQuery.extend({
  interval: z
    .enum(STATS_INTERVALS)
    .optional()
    .describe(
      `\`day\` (default) or \`hour\`: the series counts each UTC day, or each hour (a range of at most ` +
        `${HOURLY_MAX_DAYS} days).`,
    ),
});

export const CodeSchema = z
  .object({
    id: z.string(),
    slug: z
      .string()
      .describe('The last part of the short URL: random on this service (`/r/{slug}`), your own on a custom domain.'),
    shortUrl: z
      .string()
      .describe('What the code encodes: `{PUBLIC_URL}/r/{slug}`, or `https://{hostname}/{slug}` on a custom domain.'),
    domain: z.string().nullable().describe('The id (`dom_…`) of the custom domain the code lives on, or null.'),
    target: z.string(),
    name: z.string().nullable(),
    status: z.enum(CODE_STATUSES).describe('`disabled`: stopped by an operator; the owner cannot re-enable it.'),
    disabledReason: z.string().nullable().optional(),
    rules: z.array(rule),
    split: defaultSplit.nullable(),
    expiresAt: z.string().nullable().describe('ISO 8601, or null.'),
    maxScans: z.number().int().nullable(),
    expiredTarget: z.string().nullable(),
    forwardQuery: z.boolean(),
    utm: utm.nullable(),
    passwordProtected: z
      .boolean()
      .describe('Whether scans must give a password (the password itself is never returned).'),
    scans: z
      .object({
        allTime: z.number().int().describe('Every scan counted since the code was made.'),
        last30Days: z
          .number()
          .int()
          .describe('Scans of the last 30 days (UTC), today included: the `totals.scans` of the default statistics.'),
      })
      .describe(
        'Scans counted so far (bots and link previews apart). With Redis, counts arrive through the rollup ' +
          'that runs every minute.',
      ),
    createdAt: z.string().describe('ISO 8601.'),
    updatedAt: z.string().describe('ISO 8601.'),
  })
  .meta({ id: 'DynamicCode' });

export const CodePageSchema = pageSchema(CodeSchema);

const seriesPoint = z.object({
  at: z.string().describe('Start of the day or hour, ISO 8601 UTC.'),
  scans: z.number().int(),
  uniqueScanners: z
    .number()
    .int()
    .describe("A day's unique scanners; for an hour, those first seen that day in that hour."),
});

export const StatsSchema = z.object({
  codeId: z.string(),
  from: z.string(),
  to: z.string(),
  interval: z.enum(STATS_INTERVALS),
  totals: z.object({
    scans: z.number().int().describe('Scans by people: crawlers and link previews are counted apart, as `bots`.'),
    uniqueScanners: z.number().int().describe('Sum of the daily unique scanners.'),
    bots: z
      .number()
      .int()
      .describe(
        'Scans by crawlers and link previews (Slackbot, facebookexternalhit, Googlebot, …), told apart by `isbot`.',
      ),
  }),
  series: z
    .array(seriesPoint)
    .describe('Every day (or hour, with `interval=hour`) of the range, oldest first, zeros included.'),
  devices: z.object(
    Object.fromEntries(DEVICE_CLASSES.map((d) => [d, z.number().int()])) as Record<
      (typeof DEVICE_CLASSES)[number],
      z.ZodNumber
    >,
  ),
  countries: z
    .record(z.string(), z.number().int())
    .describe(
      'Scans per country (ISO 3166-1 alpha-2; `other`: an address the database could not place), from the open ' +
        'database shipped with the service.',
    ),
  cities: z
    .array(z.object({ country: z.string(), region: z.string().nullable(), city: z.string(), scans: z.number().int() }))
    .optional()
    .describe(
      `Only when the operator configured a city database (GEOIP_CITY_DB) and some scan was placed in a city: ` +
        `most scans first, at most ${TOP_CITIES}.`,
    ),
  languages: z
    .array(z.object({ language: z.string(), scans: z.number().int() }))
    .describe('Primary language of the browser, most scans first.'),
  arms: z
    .record(z.string(), z.number().int())
    .describe(
      "Scans per weighted-split arm over the range: `default:<n>` for arm n (from 0) of the code's own " +
        '`split`, `rules[<i>]:<n>` for arm n ' +
        "of rule i's. Empty when no split sent a scan.",
    ),
  uniqueScanners: z
    .object({ counting: z.enum(['exact', 'hyperloglog']), relativeStandardError: z.number() })
    .describe(
      'Unique scanners are counted per day over a salted hash that changes daily (no personal data kept): ' +
        'exactly, or with a HyperLogLog (0.81% standard error).',
    ),
});

export function codeView(code: DynamicCode, shortUrlBase: string, scans: ScanSummary): z.infer<typeof CodeSchema> {
  return {
    id: code.id,
    slug: code.vanity?.slug ?? code.slug,
    shortUrl: codeShortUrl(code, shortUrlBase),
    domain: code.vanity?.domainId ?? null,
    target: code.target,
    name: code.name,
    status: code.status,
    ...(code.disabledReason === null ? {} : { disabledReason: code.disabledReason }),
    rules: code.routing.rules,
    split: code.routing.split,
    expiresAt: code.routing.expiresAt,
    maxScans: code.routing.maxScans,
    expiredTarget: code.routing.expiredTarget,
    forwardQuery: code.routing.forwardQuery,
    utm: code.routing.utm,
    passwordProtected: code.routing.passwordHash !== null,
    scans,
    createdAt: code.createdAt.toISOString(),
    updatedAt: code.updatedAt.toISOString(),
  };
}
