// The one error handler: every failure leaves as application/problem+json (RFC 9457) with a stable code.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { ApiError, type ErrorCode, type FieldProblem } from '../../domain/errors.js';
import { setQuotaHeaders } from '../quota-headers.js';

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  instance?: string;
  requestId?: string;
  errors?: FieldProblem[];
  [extension: string]: unknown;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export function problemTypeUri(code: ErrorCode): string {
  return `/problems/${code}`;
}

/** Which body fields pick a more specific code than invalid_request when they alone are wrong. */
const FIELD_CODES: Record<string, ErrorCode> = {
  type: 'unsupported_type',
  outputFormat: 'unsupported_format',
  content: 'invalid_content',
};

function fieldPath(instancePath: string): string {
  return instancePath.replace(/^\//, '').replaceAll('/', '.');
}

/** Maps schema validation failures to the 400 codes in the README's error table. */
function fromValidation(
  error: FastifyError & {
    validation: Array<{ instancePath: string; message?: string; keyword: string; params: Record<string, unknown> }>;
  },
  request: FastifyRequest,
): ApiError {
  // The values the failing schema read: a query or path value present but wrong is "invalid", not "required".
  const context = (error as { validationContext?: string }).validationContext ?? 'body';
  const input =
    context === 'querystring'
      ? request.query
      : context === 'params'
        ? request.params
        : context === 'headers'
          ? request.headers
          : request.body;
  const body = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const fields: FieldProblem[] = error.validation.map((issue) => {
    const path = fieldPath(issue.instancePath);
    if (issue.keyword === 'unrecognized_keys') {
      const keys = (issue.params.keys as string[] | undefined) ?? [];
      return { field: keys.map((k) => (path ? `${path}.${k}` : k)).join(', ') || '(body)', detail: 'unknown field' };
    }
    const missing = path !== '' && body[path.split('.')[0]!] === undefined;
    return { field: path || '(body)', detail: missing ? 'required' : (issue.message ?? 'invalid') };
  });
  const topFields = new Set(fields.map((f) => f.field.split('.')[0]!));
  let code: ErrorCode = 'invalid_request';
  if (topFields.size === 1) {
    const only = [...topFields][0]!;
    // A present-but-unknown type/format gets its own code; a missing one is a plain invalid request.
    // Own keys only: a body field named `constructor` must not find Object.prototype's.
    if (context === 'body' && Object.hasOwn(FIELD_CODES, only) && body[only] !== undefined) code = FIELD_CODES[only]!;
  }
  const summary = fields.map((f) => `${f.field}: ${f.detail}`).join('; ');
  return new ApiError(code, summary, { fields });
}

/** Fastify's own 4xx errors (body parsing, routing) mapped to our codes. */
function fromFrameworkError(error: FastifyError): ApiError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'send the body as JSON with Content-Type: application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', 'the request body is larger than this server accepts');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_request', 'the JSON body is empty');
  }
  if (error.statusCode === 413)
    return new ApiError('payload_too_large', 'the request body is larger than this server accepts');
  if (error.statusCode === 415)
    return new ApiError('unsupported_media_type', 'send the body as JSON with Content-Type: application/json');
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new ApiError('invalid_request', 'the body is not valid JSON');
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    // Includes secure-json-parse's prototype-poisoning refusal and bad Content-Length.
    return new ApiError('invalid_request', error.message);
  }
  return undefined;
}

export function toProblem(error: ApiError, request: FastifyRequest): ProblemDocument {
  return {
    type: problemTypeUri(error.code),
    title: error.title,
    status: error.status,
    detail: error.message,
    code: error.code,
    instance: request.url.split('?')[0],
    requestId: request.id,
    ...(error.fields ? { errors: error.fields } : {}),
    ...error.extensions,
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The code of the problem this request was answered with, for logs and metrics. */
    problemCode: ErrorCode | undefined;
  }
}

export function sendProblem(reply: FastifyReply, request: FastifyRequest, error: ApiError): FastifyReply {
  request.problemCode = error.code;
  if (error.retryAfterSeconds !== undefined) reply.header('Retry-After', String(error.retryAfterSeconds));
  if (error.quota) setQuotaHeaders(reply, error.quota);
  return reply.code(error.status).type(PROBLEM_CONTENT_TYPE).send(toProblem(error, request));
}

/**
 * Fastify's `frameworkErrors`: what the router refuses before any route, hook or error handler runs (bad
 * percent-encoding, a path parameter over its length limit) leaves as problem+json with a request id too.
 */
export function routerErrorProblem(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.header('X-Request-Id', request.id);
  const detail =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'a segment of the URL path is too long'
      : 'the URL path is not valid (malformed percent-encoding)';
  return sendProblem(reply, request, new ApiError('invalid_request', detail));
}

async function problemDetails(app: FastifyInstance): Promise<void> {
  app.decorateRequest('problemCode', undefined);
  app.setErrorHandler((error: FastifyError, request, reply) => {
    let apiError: ApiError | undefined;
    if (error instanceof ApiError) apiError = error;
    else if (hasZodFastifySchemaValidationErrors(error)) apiError = fromValidation(error, request);
    else apiError = fromFrameworkError(error);

    if (!apiError) {
      // Unknown failures are logged in full and answered without a message or stack.
      request.log.error({ err: error }, 'unhandled error');
      apiError = new ApiError(
        'internal_error',
        `an unexpected error occurred; quote request id ${request.id} when reporting it`,
      );
    } else if (apiError.status >= 500) {
      request.log.warn({ err: error, code: apiError.code }, 'request failed');
    }
    return sendProblem(reply, request, apiError);
  });
}

export default fp(problemDetails, { name: 'problem-details' });
