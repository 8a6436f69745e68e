// The batch endpoints: POST a batch (JSON or CSV), read one or the list, cancel or delete, download the ZIP.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { PAGE_SIZE } from '../../../domain/list-page.js';
import { isFinished } from '../../../domain/batches/batch.js';
import { ApiError } from '../../../domain/errors.js';
import type { BatchResults } from '../../../domain/ports/batch-results.js';
import { acceptBatch, type AcceptBatchDeps } from '../../../services/batches/accept-batch.js';
import { batchView } from '../../../services/batches/batch-view.js';
import { batchNotFound, cancelOrDeleteBatch } from '../../../services/batches/cancel-batch.js';
import { binaryContent, header, QUOTA_HEADERS } from '../../openapi/operation-doc.js';
import { COMMON_ERRORS, problemResponses } from '../../openapi/problem.schema.js';
import { setQuotaHeaders } from '../../quota-headers.js';
import { shortUrlBase } from '../../short-url.js';
import { batchArchive } from './batch-archive.js';
import { takeBurstSlot } from '../../../services/burst.js';
import { capStream, refuseDeclaredOver } from '../../body-cap.js';
import { batchBodyLimit, batchBodyTooLarge, tooManyBatchItems } from './batch-body.js';
import { readCsvBatch, TooManyCsvRows } from './batch-csv.js';
import { canonicalJson } from './canonical-json.js';
import {
  BATCHES_PATH,
  BatchBody,
  BatchListQuery,
  BatchListView,
  BatchParams,
  BatchView,
  WebhookUrl,
} from './batches.schema.js';
import { callerOf } from './api-key-auth.js';
import { keyWithScope } from './route-scope.js';

export interface BatchesRouteDeps extends AcceptBatchDeps {
  results: BatchResults;
  /** Dynamic items' short URLs are built on it (else on the listening address), as the codes API's. */
  publicUrl: string | undefined;
  /**
   * The ceiling of every plan's batch body limit (BATCH_BODY_LIMIT_BYTES); each plan's own is derived from its
   * maxBatchItems.
   */
  bodyLimit: number;
}

const BASE = BATCHES_PATH;
const IDEMPOTENCY_KEY = /^[\x21-\x7E]{1,255}$/;
const AUTH_ERRORS = ['missing_api_key', 'invalid_api_key', 'expired_api_key', 'insufficient_scope'] as const;

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the batch route's CSV parser: the CSV line of each item. */
    batchCsvLines: number[] | undefined;
  }
}

function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !IDEMPOTENCY_KEY.test(value)) {
    throw new ApiError('invalid_request', 'Idempotency-Key must be 1 to 255 printable ASCII characters', {
      fields: [{ field: 'Idempotency-Key', detail: '1 to 255 printable ASCII characters' }],
    });
  }
  return value;
}

export const batchesRoute: FastifyPluginAsyncZod<BatchesRouteDeps> = async (app, deps) => {
  app.decorateRequest('batchCsvLines', undefined);
  // CSV is accepted here only; the rest of the API stays JSON-only. Read as a stream, it stops past the plan's item
  // limit.
  app.addContentTypeParser('text/csv', async (request: FastifyRequest, payload: Readable) => {
    const plan = deps.plans.get(callerOf(request).plan);
    try {
      const csv = await readCsvBatch(payload, plan.maxBatchItems);
      request.batchCsvLines = csv.lines;
      return csv.body;
    } catch (error) {
      if (error instanceof TooManyCsvRows) throw tooManyBatchItems(plan, error.limit, error.limit + 1, true);
      throw error;
    }
  });

  app.post(
    BASE,
    {
      bodyLimit: deps.bodyLimit,
      config: { audit: ['batch.created'] },
      schema: {
        operationId: 'createBatch',
        summary: 'Render many QR codes in one call',
        description:
          'Accepts a batch of generate bodies (JSON `items`, or `Content-Type: text/csv` with a header row ' +
          'naming the same fields and `name`; ' +
          ('for CSV pass `webhookUrl` in the query string). The whole batch is validated first (every failing ' +
            'item is listed) and reserved against ') +
          ('the monthly quota at once: one request per item and one QR per new code; if it does not fit, ' +
            'nothing is counted. Items that fail to render ') +
          ('are refunded. Answers 202 with the batch; poll it, or give `webhookUrl`. With `Idempotency-Key`, a ' +
            'retry returns the same batch. ') +
          ('The body may be at most 16 KiB plus 8 KiB per item the plan allows (`maxBatchItems`, capped by the ' +
            "server's `BATCH_BODY_LIMIT_BYTES`): ") +
          ('a larger one is refused with 413 `batch_too_large` before it is read. Each post takes one slot of ' +
            'the key’s burst. ') +
          ('An item with `dynamic` makes a new dynamic code when the batch is accepted (its image encodes the ' +
            "code's short URL; manifest.csv names ") +
          ("`codeId` and `shortUrl`); the plan's `activeDynamicCodes` must hold the whole batch's, or it is " +
            'refused with 409 `code_limit_reached`.'),
        tags: ['batches'],
        security: keyWithScope('batches'),
        headers: z.looseObject({
          'idempotency-key': z
            .string()
            .max(255)
            .optional()
            .describe('Makes a retry return the batch of the first call.'),
        }),
        querystring: z.strictObject({ webhookUrl: WebhookUrl.optional() }),
        body: BatchBody,
        response: {
          202: BatchView,
          ...problemResponses([
            'invalid_request',
            'unsupported_type',
            'unsupported_format',
            'invalid_content',
            ...AUTH_ERRORS,
            'plan_upgrade_required',
            'payload_too_large',
            'batch_too_large',
            'unsupported_media_type',
            'idempotency_key_reused',
            'quota_exceeded',
            'qr_quota_exceeded',
            'too_many_batches',
            'code_limit_reached',
            'rate_limited',
            ...COMMON_ERRORS,
          ]),
        },
        'x-document': {
          requestBody: {
            content: {
              'text/csv': {
                schema: {
                  type: 'string',
                  description:
                    'RFC 4180: a header row naming generate fields and `name`, then one item per row. Pass ' +
                    'webhookUrl in the query string.',
                },
              },
            },
          },
          headers: {
            '202': {
              Location: header.location('The batch.'),
              'Idempotent-Replayed': {
                description: '`true` when this is the batch of an earlier call with the same Idempotency-Key.',
                schema: { const: 'true' },
              },
              ...QUOTA_HEADERS,
            },
          },
        },
      },
      // Before a byte is parsed: the plan's body limit (from Content-Length, then while streaming) and the key's burst.
      preParsing: async (request, reply, payload) => {
        const caller = callerOf(request);
        const plan = deps.plans.get(caller.plan);
        const limit = batchBodyLimit(plan, deps.bodyLimit);
        const tooLarge = (bytes: number) => batchBodyTooLarge(plan, limit, bytes);
        refuseDeclaredOver(request, reply, limit, tooLarge);
        await takeBurstSlot(deps, caller, 'batch posts');
        return capStream(payload, limit, tooLarge);
      },
      // JSON: the item count is known once parsed; more than the plan allows is refused before any item is validated.
      preValidation: async (request) => {
        const items = (request.body as { items?: unknown } | null)?.items;
        const limit = deps.plans.get(callerOf(request).plan).maxBatchItems;
        if (limit !== null && Array.isArray(items) && items.length > limit) {
          throw tooManyBatchItems(deps.plans.get(callerOf(request).plan), limit, items.length);
        }
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const lines = request.batchCsvLines;
      const webhookUrl = request.body.webhookUrl ?? request.query.webhookUrl;
      const idempotencyKey = idempotencyKeyOf(request.headers['idempotency-key']);
      const accepted = await acceptBatch(deps, caller, {
        items: request.body.items,
        webhookUrl,
        idempotencyKey,
        // The body as understood, not as spelled: JSON key order, CSV or JSON, whitespace do not make another batch.
        requestHash:
          idempotencyKey === undefined
            ? ''
            : sha256(canonicalJson({ items: request.body.items, webhookUrl: webhookUrl ?? null })),
        label: lines ? (index) => `line ${lines[index]}` : (index) => `items.${index}`,
        shortUrlBase: shortUrlBase(deps.publicUrl, request),
      });
      if (accepted.quota) setQuotaHeaders(reply, accepted.quota);
      if (accepted.created) {
        await app.audit(request, {
          accountId: callerOf(request).accountId,
          plan: callerOf(request).plan,
          action: 'batch.created',
          target: { type: 'batch', id: accepted.batch.id },
          changes: { items: accepted.batch.total },
        });
      }
      if (!accepted.created) reply.header('Idempotent-Replayed', 'true');
      return reply.code(202).header('Location', `/api/v1${BASE}/${accepted.batch.id}`).send(batchView(accepted.batch));
    },
  );

  app.get(
    BASE,
    {
      schema: {
        operationId: 'listBatches',
        summary: "The account's batches, newest first",
        tags: ['batches'],
        security: keyWithScope('batches'),
        querystring: BatchListQuery,
        response: { 200: BatchListView, ...problemResponses(['invalid_request', ...AUTH_ERRORS, ...COMMON_ERRORS]) },
      },
    },
    async (request) => {
      const { limit = PAGE_SIZE.default, cursor } = request.query;
      const page = await deps.batches.list(callerOf(request).accountId, { limit, before: cursor });
      return { items: page.batches.map(batchView), nextCursor: page.next ?? null };
    },
  );

  app.get(
    `${BASE}/:id`,
    {
      schema: {
        operationId: 'getBatch',
        summary: 'One batch: status and counts',
        tags: ['batches'],
        security: keyWithScope('batches'),
        params: BatchParams,
        response: {
          200: BatchView,
          ...problemResponses(['invalid_request', ...AUTH_ERRORS, 'not_found', ...COMMON_ERRORS]),
        },
      },
    },
    async (request) => {
      const batch = await deps.batches.get(callerOf(request).accountId, request.params.id);
      if (!batch) throw batchNotFound(request.params.id);
      return batchView(batch);
    },
  );

  app.delete(
    `${BASE}/:id`,
    {
      config: { audit: ['batch.cancelled'] },
      schema: {
        operationId: 'cancelOrDeleteBatch',
        summary: 'Cancel a running batch, or delete a finished one',
        description:
          'A queued or running batch is cancelled: its unrendered items are refunded (200 with the batch). A ' +
          'finished batch is deleted with its files (204). A cancelled batch whose last items are still being ' +
          'drawn answers 200 with the batch again, unchanged: a retried cancel never deletes; a DELETE once ' +
          'they have settled deletes it.',
        tags: ['batches'],
        security: keyWithScope('batches'),
        params: BatchParams,
        response: {
          200: BatchView,
          204: z.null().describe('Deleted.'),
          ...problemResponses(['invalid_request', ...AUTH_ERRORS, 'not_found', ...COMMON_ERRORS]),
        },
      },
    },
    async (request, reply) => {
      const cancelled = await cancelOrDeleteBatch(deps, callerOf(request).accountId, request.params.id);
      await app.audit(request, {
        accountId: callerOf(request).accountId,
        plan: callerOf(request).plan,
        action: 'batch.cancelled',
        target: { type: 'batch', id: request.params.id },
        changes: { deleted: !cancelled },
      });
      return cancelled ? reply.code(200).send(batchView(cancelled)) : reply.code(204).send(null);
    },
  );

  app.get(
    `${BASE}/:id/archive`,
    {
      schema: {
        operationId: 'getBatchArchive',
        summary: 'The results as a ZIP',
        description:
          'One file per rendered item (its `name`, sanitised and made unique, or its index) and ' +
          '`manifest.csv`: index, name, file, status, error.',
        tags: ['batches'],
        security: keyWithScope('batches'),
        params: BatchParams,
        response: problemResponses([
          'invalid_request',
          ...AUTH_ERRORS,
          'not_found',
          'batch_not_finished',
          ...COMMON_ERRORS,
        ]),
        'x-document': {
          responses: {
            '200': {
              description: 'The ZIP, streamed.',
              content: binaryContent(['application/zip']),
              headers: {
                'Content-Disposition': {
                  description: '`attachment; filename="<batch id>.zip"`.',
                  required: true,
                  schema: { type: 'string' },
                },
              },
            },
          },
          headers: {
            '409': {
              'Retry-After': {
                description: 'Seconds until asking again is worth it.',
                required: true,
                schema: { type: 'string' },
              },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const batch = await deps.batches.get(callerOf(request).accountId, request.params.id);
      if (!batch) throw batchNotFound(request.params.id);
      if (!isFinished(batch.status)) {
        throw new ApiError(
          'batch_not_finished',
          `batch ${batch.id} is ${batch.status} (${batch.succeeded + batch.failed} of ${batch.total} done); ` +
            `the archive is ready when it finishes`,
          {
            retryAfterSeconds: 5,
          },
        );
      }
      const archive = await batchArchive(batch, deps);
      return reply
        .code(200)
        .type('application/zip')
        .header('Content-Disposition', `attachment; filename="${batch.id}.zip"`)
        .send(archive);
    },
  );
};

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
