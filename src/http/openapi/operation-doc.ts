// What a route's zod schemas cannot say in OpenAPI: non-JSON bodies (images, ZIP, HTML, CSV, raw uploads), redirects
// and response headers.
export interface HeaderDoc {
  description: string;
  /** Sent on every answer of this status (the test helper's response validator checks it). */
  required?: boolean;
  schema?: Record<string, unknown>;
}

export interface MediaDoc {
  schema?: Record<string, unknown>;
}

export interface ResponseDoc {
  description: string;
  content?: Record<string, MediaDoc>;
  headers?: Record<string, HeaderDoc>;
}

/**
 * Set as `'x-document'` on a route's schema; `finishDocument` merges it into the operation and removes the key.
 * Custom keys must start with `x-` for @fastify/swagger to carry them to the transform.
 */
export interface OperationDoc {
  /** Whole responses, for answers that are not JSON (they replace any generated entry of the same status). */
  responses?: Record<string, ResponseDoc>;
  /** Headers added to responses declared in the route's `response` schemas, by status. */
  headers?: Record<string, Record<string, HeaderDoc>>;
  /** Request body media types beside (or instead of) the JSON of `schema.body`. */
  requestBody?: { description?: string; required?: boolean; content: Record<string, MediaDoc> };
}

declare module 'fastify' {
  interface FastifySchema {
    'x-document'?: OperationDoc;
  }
}

/** A body of raw bytes in each of the media types. */
export function binaryContent(mediaTypes: readonly string[]): Record<string, MediaDoc> {
  return Object.fromEntries(
    mediaTypes.map((type) => [type, { schema: { type: 'string', format: 'binary', contentMediaType: type } }]),
  );
}

export const header = {
  location: (description: string): HeaderDoc => ({
    description,
    required: true,
    schema: { type: 'string', format: 'uri-reference' },
  }),
  etag: {
    description: 'Strong validator of the image: send it as If-None-Match to get 304 when nothing changed.',
    required: true,
    schema: { type: 'string' },
  },
  cacheControl: { description: '`private, max-age=0, must-revalidate`.', required: true, schema: { type: 'string' } },
  qrVersion: {
    description: 'The QR version (1–40) of the symbol drawn: the smallest that holds the content at the level drawn.',
    required: true,
    schema: { type: 'string', pattern: '^([1-9]|[1-3][0-9]|40)$' },
  },
  qrErrorCorrection: {
    description:
      'The error correction level the symbol was drawn at: the one asked for, or higher when the request left ' +
      'it open ' +
      'and a logo or the design needed more (see docs/branding.md).',
    required: true,
    schema: { type: 'string', enum: ['L', 'M', 'Q', 'H'] },
  },
} satisfies Record<string, HeaderDoc | ((description: string) => HeaderDoc)>;

/**
 * The quota headers (RateLimit-Policy, RateLimit, X-RateLimit-*) a metered answer carries: each absent when its
 * dimension is unlimited.
 */
export const QUOTA_HEADERS: Record<string, HeaderDoc> = {
  'RateLimit-Policy': {
    description:
      'IETF structured form: `"monthly";q=500;w=2592000, "monthly-qrs";q=5;w=…, "burst";q=10;w=1` (unlimited ' +
      'dimensions left out).',
    schema: { type: 'string' },
  },
  RateLimit: { description: 'What is left of each policy: `"monthly";r=42;t=1036800, …`.', schema: { type: 'string' } },
  'X-RateLimit-Limit': {
    description: 'Monthly requests of the plan (absent when unlimited).',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  'X-RateLimit-Remaining': { description: 'Monthly requests left.', schema: { type: 'string', pattern: '^[0-9]+$' } },
  'X-RateLimit-Reset': {
    description: 'When the monthly quota resets, in epoch seconds.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
};

/** The image an answer carries (generate, a dynamic code's image), with its 304 when If-None-Match names it. */
export function imageResponses(description: string, mediaTypes: readonly string[]): Record<string, ResponseDoc> {
  return {
    '200': {
      description,
      content: binaryContent(mediaTypes),
      headers: {
        ETag: header.etag,
        'Cache-Control': header.cacheControl,
        'QR-Version': header.qrVersion,
        'QR-Error-Correction': header.qrErrorCorrection,
        ...QUOTA_HEADERS,
      },
    },
    '304': {
      description: 'Not modified: the If-None-Match sent names this image. Nothing is counted.',
      headers: { ETag: header.etag, 'Cache-Control': header.cacheControl },
    },
  };
}
