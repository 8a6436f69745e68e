// The problem+json document as a zod schema: serialises every error response and documents it in OpenAPI.
import { z } from 'zod';
import { ERROR_CODES, errorStatus, type ErrorCode } from '../../domain/errors.js';

export const FieldProblemSchema = z.object({
  field: z.string().describe('Dotted path of the failing field, e.g. `content.ssid`.'),
  detail: z.string().describe('The rule the value broke.'),
});

export const ProblemSchema = z
  .looseObject({
    type: z.string().describe('URI reference naming the problem type: `/problems/<code>`.'),
    title: z.string().describe('Short summary of the problem type.'),
    status: z.number().int().describe('The HTTP status code.'),
    detail: z.string().describe('What went wrong on this request, in words a developer can act on.'),
    code: z.enum(ERROR_CODES).describe('Stable machine-readable code.'),
    instance: z.string().optional().describe('The request path.'),
    requestId: z.string().optional().describe('Also sent as X-Request-Id; quote it when reporting a problem.'),
    errors: z.array(FieldProblemSchema).optional().describe('For validation problems: each failing field.'),
  })
  .describe('RFC 9457 problem details, with a stable `code` and extension members such as `limit`.')
  .meta({ id: 'Problem' });

/** Route response schemas for the given error codes, grouped by status, each naming its codes. */
export function problemResponses(codes: readonly ErrorCode[]): Record<number, z.ZodType> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes))
    byStatus.set(errorStatus(code), [...(byStatus.get(errorStatus(code)) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      status,
      ProblemSchema.describe(`Problem: ${list.map((c) => `\`${c}\``).join(', ')}`),
    ]),
  );
}

/**
 * Errors any route can answer regardless of its own logic: a failure, shutdown, load shedding, and `not_found` on a
 * Host
 * that is not this service's own (a custom domain serves only its scans).
 */
export const COMMON_ERRORS: readonly ErrorCode[] = ['internal_error', 'unavailable', 'overloaded', 'not_found'];
