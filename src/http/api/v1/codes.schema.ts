// Schemas of the dynamic-code endpoints: requests as validated and responses as serialised, documented in OpenAPI from the same source.
import { z } from 'zod';
import { CODE_NAME_MAX_LENGTH, CODE_STATUSES, OWNER_STATUSES, TARGET_MAX_LENGTH, type DynamicCode } from '../../../domain/dynamic-code.js';
import { OUTPUT_FORMATS } from '../../../domain/plan-catalogue.js';
import { ERROR_CORRECTION_LEVELS, HEX_COLOUR, MARGIN_LIMITS, SIZE_LIMITS } from '../../../domain/render-options.js';
import { DEVICE_CLASSES } from '../../../domain/scan.js';
import { PAGE_SIZE } from '../../../services/dynamic-codes.js';

const target = z.string().max(TARGET_MAX_LENGTH).describe(`Where scans are sent: an absolute http(s) URL, at most ${TARGET_MAX_LENGTH} characters.`);
const name = z.string().max(CODE_NAME_MAX_LENGTH).describe('A label for you; never shown to people who scan.');

export const CreateCodeBody = z.strictObject({ target, name: name.nullable().optional() });

export const UpdateCodeBody = z.strictObject({
  target: target.optional(),
  name: name.nullable().optional(),
  status: z.enum(OWNER_STATUSES).optional().describe('`paused` codes answer scans with 410 until set `active` again.'),
});

export const CodeParams = z.object({ id: z.string().min(1).max(64).describe('The code id.') });

export const ListCodesQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(PAGE_SIZE.max).optional().describe(`Codes per page (default ${PAGE_SIZE.default}).`),
  cursor: z.string().max(200).optional().describe('`nextCursor` of the previous page.'),
});

const colour = z.string().regex(HEX_COLOUR, 'must be #RRGGBB or #RRGGBBAA');

/** The generate options, as a query string (the content is the code's short URL). */
export const CodeImageQuery = z.strictObject({
  outputFormat: z.enum(OUTPUT_FORMATS).default('png').describe('Image format (default png); svg needs a paid plan.'),
  size: z.coerce.number().int().min(SIZE_LIMITS.min).max(SIZE_LIMITS.max).optional().describe(`Image side in pixels (default ${SIZE_LIMITS.default}).`),
  margin: z.coerce
    .number()
    .int()
    .min(MARGIN_LIMITS.min)
    .max(MARGIN_LIMITS.max)
    .optional()
    .describe(`Quiet zone in modules (default ${MARGIN_LIMITS.default}).`),
  errorCorrection: z.enum(ERROR_CORRECTION_LEVELS).optional().describe('Error correction level (default M).'),
  darkColor: colour.optional().describe('Colour of dark modules (default #000000).'),
  lightColor: colour.optional().describe('Background colour (default #FFFFFF).'),
});

export const StatsQuery = z.strictObject({
  from: z.string().max(10).optional().describe('First day, YYYY-MM-DD (UTC); default 29 days before `to`.'),
  to: z.string().max(10).optional().describe('Last day, YYYY-MM-DD (UTC); default today.'),
});

export const CodeSchema = z
  .object({
    id: z.string(),
    slug: z.string().describe('The random part of the short URL.'),
    shortUrl: z.string().describe('What the code encodes: `{PUBLIC_URL}/r/{slug}`.'),
    target: z.string(),
    name: z.string().nullable(),
    status: z.enum(CODE_STATUSES).describe('`disabled`: stopped by an operator; the owner cannot re-enable it.'),
    disabledReason: z.string().nullable().optional(),
    createdAt: z.string().describe('ISO 8601.'),
    updatedAt: z.string().describe('ISO 8601.'),
  })
  .meta({ id: 'DynamicCode' });

export const CodePageSchema = z.object({ items: z.array(CodeSchema), nextCursor: z.string().nullable() });

const dayCount = z.object({ day: z.string(), scans: z.number().int(), uniqueScanners: z.number().int() });

export const StatsSchema = z.object({
  codeId: z.string(),
  from: z.string(),
  to: z.string(),
  totals: z.object({ scans: z.number().int(), uniqueScanners: z.number().int().describe('Sum of the daily unique scanners.') }),
  days: z.array(dayCount).describe('Every day of the range, oldest first.'),
  devices: z.object(Object.fromEntries(DEVICE_CLASSES.map((d) => [d, z.number().int()])) as Record<(typeof DEVICE_CLASSES)[number], z.ZodNumber>),
  languages: z.array(z.object({ language: z.string(), scans: z.number().int() })).describe('Primary language of the browser, most scans first.'),
  uniqueScanners: z
    .object({ counting: z.enum(['exact', 'hyperloglog']), relativeStandardError: z.number() })
    .describe(
      'Unique scanners are counted per day over a salted hash that changes daily (no personal data kept): exactly, or with a HyperLogLog (0.81% standard error).',
    ),
});

export function codeView(code: DynamicCode, shortUrlBase: string): z.infer<typeof CodeSchema> {
  return {
    id: code.id,
    slug: code.slug,
    shortUrl: `${shortUrlBase}/r/${code.slug}`,
    target: code.target,
    name: code.name,
    status: code.status,
    ...(code.disabledReason === null ? {} : { disabledReason: code.disabledReason }),
    createdAt: code.createdAt.toISOString(),
    updatedAt: code.updatedAt.toISOString(),
  };
}
