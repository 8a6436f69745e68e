// The QR Manager client for TypeScript: openapi-fetch over the generated types, plus images as bytes, problems as
// errors, retries and batch helpers.
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './generated/schema.js';

export type { components, paths };
export type Batch = components['schemas']['Batch'];
export type DynamicCode = components['schemas']['DynamicCode'];
export type Logo = components['schemas']['Logo'];
export type Problem = components['schemas']['Problem'];
export type GenerateBody = paths['/api/v1/QRManager/generate']['post']['requestBody']['content']['application/json'];
export type BatchBody = paths['/api/v1/QRManager/batches']['post']['requestBody']['content']['application/json'];
export type CreateCodeBody = paths['/api/v1/QRManager/codes']['post']['requestBody']['content']['application/json'];
export type CodeImageQuery = NonNullable<paths['/api/v1/QRManager/codes/{id}/image']['get']['parameters']['query']>;
export type CodeStats =
  paths['/api/v1/QRManager/codes/{id}/stats']['get']['responses'][200]['content']['application/json'];
export type AccountStats = components['schemas']['AccountStats'];

const FINISHED = new Set(['completed', 'failed', 'cancelled']);

/**
 * A problem+json answer: `code` is the stable machine code (`quota_exceeded`, `invalid_content`, …), `problem` the
 * whole document.
 */
export class QrManagerError extends Error {
  override name = 'QrManagerError';
  readonly status: number;
  readonly code: string;
  readonly problem: Partial<Problem> & Record<string, unknown>;
  /** Seconds, from Retry-After, when the service said when to come back. */
  readonly retryAfter: number | undefined;
  /**
   * When Retry-After points: for a quota 429 (`quota_exceeded`, `qr_quota_exceeded`), when the month's quota resets.
   */
  readonly resetsAt: Date | undefined;

  constructor(status: number, problem: Partial<Problem> & Record<string, unknown>, retryAfter?: number) {
    super(`${status} ${problem.code ?? 'unexpected_response'}: ${problem.detail ?? ''}`);
    this.status = status;
    this.code = problem.code ?? 'unexpected_response';
    this.problem = problem;
    this.retryAfter = retryAfter;
    this.resetsAt = retryAfter === undefined ? undefined : new Date(Date.now() + retryAfter * 1000);
  }
}

export interface QrManagerOptions {
  /** e.g. `http://localhost:3000` (no `/api/v1`). */
  baseUrl: string;
  apiKey?: string;
  /** Retries of a 503 or a 429 `rate_limited`, each after its Retry-After (default 3). */
  retries?: number;
  /** The most all the waits of one call may add up to; past it the error is raised instead (default 30 s). */
  maxWaitMs?: number;
  fetch?: typeof fetch;
}

function retryAfterSeconds(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  return value && /^\d+$/.test(value) ? Number(value) : undefined;
}

/**
 * 503s are retried; of the 429s only `rate_limited` (the per-second burst): a monthly quota is not back within a wait.
 */
async function retryable(response: Response): Promise<boolean> {
  if (response.status === 503) return true;
  if (response.status !== 429) return false;
  const problem = (await response
    .clone()
    .json()
    .catch(() => undefined)) as { code?: unknown } | undefined;
  return problem?.code === 'rate_limited';
}

/**
 * A fetch that answers a 503 or a 429 `rate_limited` by waiting its Retry-After and sending the request again, at most
 * `retries` times and only while the waits together stay within `maxWaitMs`; any other answer is returned at once.
 */
export function retryingFetch(options: { retries: number; maxWaitMs: number; fetch: typeof fetch }): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    let waitedMs = 0;
    for (let attempt = 0; ; attempt++) {
      const response = await options.fetch(request.clone());
      if (attempt >= options.retries || !(await retryable(response))) return response;
      const waitMs = (retryAfterSeconds(response) ?? 2 ** attempt / 2) * 1000;
      if (waitedMs + waitMs > options.maxWaitMs) return response;
      waitedMs += waitMs;
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  };
}

async function problemOf(response: Response, parsed: unknown): Promise<QrManagerError> {
  const problem =
    typeof parsed === 'object' && parsed !== null
      ? (parsed as Record<string, unknown>)
      : { detail: String(parsed ?? response.statusText) };
  return new QrManagerError(response.status, problem, retryAfterSeconds(response));
}

function randomKey(): string {
  return `ts-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}

export class QrManager {
  /** The generated client: every operation of the document, typed (`client.api.GET('/api/v1/QRManager/batches')`). */
  readonly api: Client<paths>;

  constructor(options: QrManagerOptions) {
    this.api = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/$/, ''),
      headers: options.apiKey ? { 'X-API-Key': options.apiKey } : {},
      fetch: retryingFetch({
        retries: options.retries ?? 3,
        maxWaitMs: options.maxWaitMs ?? 30_000,
        fetch: options.fetch ?? globalThis.fetch,
      }),
    });
  }

  /** The image bytes: PNG, WebP or SVG as `outputFormat` says. */
  async generate(body: GenerateBody): Promise<Uint8Array> {
    const { data, error, response } = await this.api.POST('/api/v1/QRManager/generate', {
      body,
      parseAs: 'arrayBuffer',
    });
    if (!response.ok || !data) throw await problemOf(response, error);
    return new Uint8Array(data);
  }

  /** Creates a batch with an Idempotency-Key (a random one unless given): a retried call never makes two batches. */
  async createBatch(body: BatchBody, options: { idempotencyKey?: string } = {}): Promise<Batch> {
    const { data, error, response } = await this.api.POST('/api/v1/QRManager/batches', {
      body,
      params: { header: { 'idempotency-key': options.idempotencyKey ?? randomKey() } },
    });
    if (!data) throw await problemOf(response, error);
    return data;
  }

  async getBatch(id: string): Promise<Batch> {
    const { data, error, response } = await this.api.GET('/api/v1/QRManager/batches/{id}', {
      params: { path: { id } },
    });
    if (!data) throw await problemOf(response, error);
    return data;
  }

  /** Polls until the batch has finished (completed, failed or cancelled). */
  async waitForBatch(id: string, options: { timeoutMs?: number; intervalMs?: number } = {}): Promise<Batch> {
    const deadline = Date.now() + (options.timeoutMs ?? 300_000);
    for (;;) {
      const batch = await this.getBatch(id);
      if (FINISHED.has(batch.status)) return batch;
      if (Date.now() > deadline) throw new Error(`batch ${id} is still ${batch.status}`);
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 500));
    }
  }

  /** The ZIP of a finished batch as a stream (never held whole in memory). */
  async archive(id: string): Promise<ReadableStream<Uint8Array>> {
    const { data, error, response } = await this.api.GET('/api/v1/QRManager/batches/{id}/archive', {
      params: { path: { id } },
      parseAs: 'stream',
    });
    if (!response.ok || !data) throw await problemOf(response, error);
    return data;
  }

  async createCode(body: CreateCodeBody): Promise<DynamicCode> {
    const { data, error, response } = await this.api.POST('/api/v1/QRManager/codes', { body });
    if (!data) throw await problemOf(response, error);
    return data;
  }

  /** A dynamic code's image bytes (its short URL), with the generate options as query. */
  async codeImage(id: string, query: Partial<CodeImageQuery> = {}): Promise<Uint8Array> {
    const { data, error, response } = await this.api.GET('/api/v1/QRManager/codes/{id}/image', {
      params: { path: { id }, query: query as CodeImageQuery },
      parseAs: 'arrayBuffer',
    });
    if (!response.ok || !data) throw await problemOf(response, error);
    return new Uint8Array(data);
  }

  async codeStats(id: string, query: { from?: string; to?: string } = {}): Promise<CodeStats> {
    const { data, error, response } = await this.api.GET('/api/v1/QRManager/codes/{id}/stats', {
      params: { path: { id }, query },
    });
    if (!data) throw await problemOf(response, error);
    return data;
  }

  /** The account's scans across all its dynamic codes: a series per day, totals, the top codes, devices. */
  async accountStats(query: { from?: string; to?: string; interval?: 'day' } = {}): Promise<AccountStats> {
    const { data, error, response } = await this.api.GET('/api/v1/QRManager/stats', { params: { query } });
    if (!data) throw await problemOf(response, error);
    return data;
  }

  /** Uploads a logo: the image itself (PNG, JPEG or WebP) as the body. */
  /** `name` is what the portal's pickers show (default "Untitled logo"); rename later with `PATCH /logos/{id}`. */
  async uploadLogo(
    image: Uint8Array | Blob,
    mediaType: 'image/png' | 'image/jpeg' | 'image/webp',
    options: { name?: string } = {},
  ): Promise<Logo> {
    const blob = image instanceof Blob ? image : new Blob([image as Uint8Array<ArrayBuffer>], { type: mediaType });
    const { data, error, response } = await this.api.POST('/api/v1/QRManager/logos', {
      body: blob as unknown as string,
      headers: { 'Content-Type': mediaType },
      params: { query: options.name === undefined ? {} : { name: options.name } },
      bodySerializer: (body) => body as unknown as Blob,
    });
    if (!data) throw await problemOf(response, error);
    return data;
  }
}
export { signedImageUrl, type ImageFormat, type SignedImageUrlOptions } from './signed-url.js';
