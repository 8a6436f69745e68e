// A signed URL's query parameters as the generation body: the same fields, the same schema, dotted names for nested
// ones.
import type { z } from 'zod';
import { contentEncoderFor } from '../../domain/content/index.js';
import { QR_TYPES } from '../../domain/content/types.js';
import { ApiError, type ErrorCode, type FieldProblem } from '../../domain/errors.js';
import { GenerateBody } from '../api/v1/generate.schema.js';

/** Fields written as numbers or booleans in the body; in a URL every value is text. */
const NUMBER_FIELDS = new Set(['size', 'margin', 'logo.scale', 'sizeMm', 'dpi']);
const BOOLEAN_FIELDS = new Set(['eci']);
const NESTED_FIELDS = new Set(['logo.id', 'logo.scale', 'frame.text', 'frame.color']);
const NUMBER = /^-?\d{1,10}(\.\d{1,10})?$/;

/** Which fields pick a more specific code than invalid_request when they alone are wrong (as for the JSON body). */
const FIELD_CODES: Record<string, ErrorCode> = {
  type: 'unsupported_type',
  outputFormat: 'unsupported_format',
  content: 'invalid_content',
};

function valueOf(name: string, raw: string): unknown {
  if (NUMBER_FIELDS.has(name)) return NUMBER.test(raw) ? Number(raw) : raw;
  if (BOOLEAN_FIELDS.has(name)) return raw === 'true' ? true : raw === 'false' ? false : raw;
  return raw;
}

/** Structured content travels as a JSON string in `content`, for the types that take named fields. */
function contentOf(type: string | undefined, raw: unknown): unknown {
  if (typeof raw !== 'string' || !raw.startsWith('{') || !(QR_TYPES as readonly string[]).includes(type ?? ''))
    return raw;
  if (!contentEncoderFor(type as (typeof QR_TYPES)[number]).objectSchema) return raw;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new ApiError('invalid_content', 'content: starts with { but is not valid JSON', {
      fields: [{ field: 'content', detail: 'not valid JSON' }],
    });
  }
}

function fromZod(error: z.ZodError): ApiError {
  const fields: FieldProblem[] = error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys')
      return {
        field: issue.keys.map((key) => (path ? `${path}.${key}` : key)).join(', '),
        detail: 'unknown parameter',
      };
    return { field: path || '(query)', detail: issue.message };
  });
  const top = new Set(fields.map((field) => field.field.split('.')[0]!));
  const only = top.size === 1 ? [...top][0]! : undefined;
  const code = only !== undefined && Object.hasOwn(FIELD_CODES, only) ? FIELD_CODES[only]! : 'invalid_request';
  return new ApiError(code, fields.map((f) => `${f.field}: ${f.detail}`).join('; '), { fields });
}

/**
 * The body a POST generate would have sent: 400 for a repeated, unknown or invalid parameter, as the JSON body gets.
 */
export function generateBodyOf(format: string, options: ReadonlyArray<readonly [string, string]>): GenerateBody {
  const body: Record<string, unknown> = { outputFormat: format };
  const seen = new Set<string>();
  for (const [name, raw] of options) {
    if (seen.has(name))
      throw new ApiError('invalid_request', `${name}: given more than once`, {
        fields: [{ field: name, detail: 'given more than once' }],
      });
    seen.add(name);
    if (name === 'logo' || name === 'frame')
      throw new ApiError('invalid_request', `${name}: give its fields as ${name}.…`, {
        fields: [{ field: name, detail: `give its fields as ${name}.…` }],
      });
    if (name === 'outputFormat')
      throw new ApiError('invalid_request', 'outputFormat: the format is the last segment of the path', {
        fields: [{ field: name, detail: 'unknown parameter' }],
      });
    const value = valueOf(name, raw);
    if (NESTED_FIELDS.has(name)) {
      const [parent, child] = name.split('.') as [string, string];
      const nested = (body[parent] ?? {}) as Record<string, unknown>;
      nested[child] = value;
      body[parent] = nested;
    } else {
      body[name] = value;
    }
  }
  body.content = contentOf(typeof body.type === 'string' ? body.type : undefined, body.content);
  const parsed = GenerateBody.safeParse(body);
  if (!parsed.success) throw fromZod(parsed.error);
  return parsed.data;
}
