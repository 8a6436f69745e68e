// The error table: every error the API can answer, with its stable code, HTTP status and title.
import type { QuotaState } from './quota.js';

/** One failing input field, reported in problem+json `errors`. */
export interface FieldProblem {
  /** Dotted path of the field in the request body, e.g. `content.ssid`. */
  field: string;
  /** What rule the value broke, in words a developer can act on. */
  detail: string;
}

const ERROR_TABLE = {
  invalid_request: { status: 400, title: 'Invalid request' },
  unsupported_type: { status: 400, title: 'Unsupported content type' },
  unsupported_format: { status: 400, title: 'Unsupported output format' },
  invalid_content: { status: 400, title: 'Invalid content for this type' },
  invalid_webhook_signature: { status: 400, title: 'Invalid webhook signature' },
  missing_api_key: { status: 401, title: 'Missing API key' },
  invalid_api_key: { status: 401, title: 'Invalid API key' },
  expired_api_key: { status: 401, title: 'Expired API key' },
  unauthorized: { status: 401, title: 'Sign-in required' },
  plan_upgrade_required: { status: 403, title: 'Plan upgrade required' },
  insufficient_scope: { status: 403, title: 'Insufficient key scope' },
  forbidden: { status: 403, title: 'Forbidden' },
  invalid_signature: { status: 403, title: 'Invalid signature' },
  insufficient_role: { status: 403, title: 'Your role in this account does not allow this' },
  invitation_email_mismatch: { status: 403, title: 'Invitation is for another e-mail address' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  request_timeout: { status: 408, title: 'Request body too slow' },
  key_limit_reached: { status: 409, title: 'Active key limit reached' },
  code_limit_reached: { status: 409, title: 'Dynamic code limit reached' },
  code_disabled: { status: 409, title: 'Code disabled by an operator' },
  batch_not_finished: { status: 409, title: 'Batch still rendering' },
  already_subscribed: { status: 409, title: 'Subscription already active' },
  last_owner: { status: 409, title: 'The account needs an owner' },
  batch_too_large: { status: 413, title: 'Too many items in one batch' },
  idempotency_key_reused: { status: 422, title: 'Idempotency-Key reused with another body' },
  url_expired: { status: 410, title: 'Signed URL expired' },
  too_many_batches: { status: 429, title: 'Too many batches in flight' },
  too_many_decodes: { status: 429, title: 'Too many decodes in progress' },
  preview_limit_reached: { status: 429, title: 'Daily live preview limit reached' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  content_too_long: { status: 422, title: 'Content too long for a QR code' },
  unscannable_design: { status: 422, title: 'Design would not scan' },
  no_code_found: { status: 422, title: 'No QR code found in the image' },
  logo_limit_reached: { status: 409, title: 'Logo limit reached' },
  webhook_limit_reached: { status: 409, title: 'Webhook limit reached' },
  design_limit_reached: { status: 409, title: 'Design limit reached' },
  domain_limit_reached: { status: 409, title: 'Custom domain limit reached' },
  hostname_taken: { status: 409, title: 'Hostname already registered' },
  domain_in_use: { status: 409, title: 'Custom domain in use' },
  slug_taken: { status: 409, title: 'Slug already taken on this domain' },
  quota_exceeded: { status: 429, title: 'Monthly request quota exceeded' },
  qr_quota_exceeded: { status: 429, title: 'Monthly QR quota exceeded' },
  rate_limited: { status: 429, title: 'Too many requests' },
  too_many_uploads: { status: 429, title: 'Too many uploads in flight' },
  internal_error: { status: 500, title: 'Internal error' },
  overloaded: { status: 503, title: 'Service overloaded' },
  unavailable: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_TABLE;
export const ERROR_CODES = Object.keys(ERROR_TABLE) as ErrorCode[];

export function errorStatus(code: ErrorCode): number {
  return ERROR_TABLE[code].status;
}

export interface ApiErrorOptions {
  fields?: FieldProblem[];
  /** Seconds until retrying can succeed; becomes the Retry-After header. */
  retryAfterSeconds?: number;
  /** Quota at the time of the error, for the quota headers of a 429. */
  quota?: QuotaState;
  /** Extra machine-readable members merged into the problem document (e.g. `limit`). */
  extensions?: Record<string, unknown>;
  cause?: unknown;
}

/** The one error type the core throws; the HTTP layer turns it into application/problem+json. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly title: string;
  readonly fields: FieldProblem[] | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly extensions: Record<string, unknown> | undefined;
  readonly quota: ApiErrorOptions['quota'];

  constructor(code: ErrorCode, detail: string, options: ApiErrorOptions = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_TABLE[code].status;
    this.title = ERROR_TABLE[code].title;
    this.fields = options.fields;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.extensions = options.extensions;
    this.quota = options.quota;
  }
}

/** Shorthand for a 400 invalid_content naming the failing field. */
export function invalidContent(field: string, detail: string): ApiError {
  return new ApiError('invalid_content', `${field}: ${detail}`, { fields: [{ field, detail }] });
}

/** Shorthand for a 400 invalid_request naming the failing field. */
export function invalidField(field: string, detail: string): ApiError {
  return new ApiError('invalid_request', `${field}: ${detail}`, { fields: [{ field, detail }] });
}
