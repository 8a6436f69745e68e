// The Batches page: upload a CSV, watch each batch's progress (polled as JSON, updated in place), download, cancel.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isFinished } from '../../../domain/batches/batch.js';
import { ApiError, type FieldProblem } from '../../../domain/errors.js';
import type { PlanCatalogue } from '../../../domain/plan-catalogue.js';
import type { AccountStore } from '../../../domain/ports/account-store.js';
import type { DesignStore } from '../../../domain/ports/design-store.js';
import type { DynamicCodeStore } from '../../../domain/ports/dynamic-code-store.js';
import type { BatchQueue } from '../../../domain/ports/batch-queue.js';
import type { BatchResults } from '../../../domain/ports/batch-results.js';
import type { BatchStore } from '../../../domain/ports/batch-store.js';
import type { Renderer } from '../../../domain/ports/renderer.js';
import type { LogoStore } from '../../../domain/ports/logo-store.js';
import type { UsageMeter } from '../../../domain/ports/usage-meter.js';
import { acceptBatch } from '../../../services/batches/accept-batch.js';
import { batchNotFound, cancelOrDeleteBatch } from '../../../services/batches/cancel-batch.js';
import { batchArchive } from '../../api/v1/batch-archive.js';
import { takeBurstSlot } from '../../../services/burst.js';
import { batchBodyLimit, batchBodyTooLarge, tooManyBatchItems } from '../../api/v1/batch-body.js';
import { readCsvBatch, TooManyCsvRows } from '../../api/v1/batch-csv.js';
import { capStream, refuseDeclaredOver } from '../../body-cap.js';
import { shortUrlBase } from '../../short-url.js';
import { canonicalJson } from '../../api/v1/canonical-json.js';
import { renderPage } from '../page.js';
import { batchProgress, BatchProgressSchema } from '../batch-progress.js';

export interface BatchesRoutesOptions {
  base: string;
  accounts: AccountStore;
  batches: BatchStore;
  batchResults: BatchResults;
  meter: UsageMeter;
  renderer: Pick<Renderer, 'assertDrawable'>;
  logos: Pick<LogoStore, 'get'>;
  queue: BatchQueue;
  designs: Pick<DesignStore, 'get'>;
  /** Dynamic rows (`dynamic.target`) make codes here; their short URLs are built on publicUrl, as the codes page's. */
  codes: DynamicCodeStore;
  publicUrl: string | undefined;
  clock: () => Date;
  plans: PlanCatalogue;
  bodyLimit: number;
}

const LISTED = 20;
/** The form posts the CSV percent-encoded: at most three bytes sent per byte of CSV. */
const FORM_ENCODING_FACTOR = 3;
/** Without JavaScript the page refreshes itself while a batch runs; with it, the page polls and nothing reloads. */
const REFRESH_SECONDS = 3;

const UploadForm = z.object({ csv: z.string().max(256 * 1024 * 1024), _csrf: z.string().optional() });
const BatchParams = z.object({ id: z.string().min(1).max(64) });
const BATCH_ID = z.string().min(1).max(64);
const ProgressQuery = z.strictObject({
  ids: z
    .string()
    .max((64 + 1) * LISTED)
    .transform((ids) => ids.split(','))
    .pipe(z.array(BATCH_ID).min(1).max(LISTED)),
});

export const batchesRoutes: FastifyPluginAsyncZod<BatchesRoutesOptions> = async (app, options) => {
  const { base } = options;

  const page = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { error?: string; problems?: FieldProblem[]; csv?: string } = {},
    status = 200,
  ) => {
    const account = request.account!;
    const { batches } = await options.batches.list(account.id, { limit: LISTED });
    const running = batches.some((batch) => !isFinished(batch.status));
    return renderPage(
      request,
      reply,
      'batches',
      {
        title: 'Batches',
        nav: 'batches',
        batches: batches.map((batch) => ({ ...batchProgress(batch, base), createdAt: batch.createdAt })),
        plan: options.plans.get(account.plan),
        webhookSecret: await options.batches.webhookSecret(account.id),
        // Only inside <noscript>: a browser running portal.js polls instead, so what is typed in the page survives.
        ...(running && !extra.error ? { refreshSeconds: REFRESH_SECONDS } : {}),
        ...extra,
      },
      status,
    );
  };

  app.get('/batches', { config: { access: 'read' }, schema: { hide: true } }, async (request, reply) =>
    page(request, reply),
  );

  // The page's script polls this while a batch runs: the bars move in place and nothing the user typed is lost.
  app.get(
    '/api/batch-progress',
    {
      config: { access: 'read' },
      schema: {
        hide: true,
        querystring: ProgressQuery,
        response: { 200: z.object({ items: z.array(BatchProgressSchema) }) },
      },
    },
    async (request, reply) => {
      const accountId = request.account!.id;
      const found = await Promise.all([...new Set(request.query.ids)].map((id) => options.batches.get(accountId, id)));
      reply.header('Cache-Control', 'no-store');
      return { items: found.filter((batch) => batch !== undefined).map((batch) => batchProgress(batch, base)) };
    },
  );

  app.post(
    '/batches',
    {
      config: { access: 'codes.manage', audit: ['batch.created'] },
      schema: { hide: true, body: UploadForm },
      bodyLimit: options.bodyLimit * FORM_ENCODING_FACTOR,
      // As the API: the account is known before the body is read, its plan sets the body limit, and an upload takes a
      // burst slot.
      preParsing: async (request, reply, payload) => {
        const account = request.account!;
        const plan = options.plans.get(account.plan);
        const limit = batchBodyLimit(plan, options.bodyLimit) * FORM_ENCODING_FACTOR;
        const tooLarge = (bytes: number) => batchBodyTooLarge(plan, limit, bytes);
        refuseDeclaredOver(request, reply, limit, tooLarge);
        await takeBurstSlot(options, { accountId: account.id, plan: account.plan }, 'batch uploads');
        return capStream(payload, limit, tooLarge);
      },
      preHandler: app.requireCsrf,
    },
    async (request, reply) => {
      const account = request.account!;
      const plan = options.plans.get(account.plan);
      try {
        const { body, lines } = await readCsvBatch(Readable.from([request.body.csv]), plan.maxBatchItems).catch(
          (error: unknown) => {
            throw error instanceof TooManyCsvRows ? tooManyBatchItems(plan, error.limit, error.limit + 1, true) : error;
          },
        );
        const accepted = await acceptBatch(
          options,
          { accountId: account.id, plan: account.plan },
          {
            items: body.items,
            requestHash: createHash('sha256').update(canonicalJson(body.items)).digest('hex'),
            label: (index) => `line ${lines[index]}`,
            shortUrlBase: shortUrlBase(options.publicUrl, request),
          },
        );
        const { batch } = accepted;
        if (accepted.created) {
          await app.audit(request, {
            accountId: account.id,
            action: 'batch.created',
            target: { type: 'batch', id: batch.id },
            changes: { items: batch.total },
          });
        }
        return reply.redirect(`${base}/batches`, 303);
      } catch (error) {
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        return page(
          request,
          reply,
          { error: error.message, problems: error.fields?.slice(0, 50) ?? [], csv: request.body.csv },
          error.status,
        );
      }
    },
  );

  app.post(
    '/batches/:id/cancel',
    {
      config: { access: 'codes.manage', audit: ['batch.cancelled'] },
      schema: { hide: true, params: BatchParams },
      preHandler: app.requireCsrf,
    },
    async (request, reply) => {
      const accountId = request.account!.id;
      const batch = await options.batches.get(accountId, request.params.id);
      if (!batch) throw batchNotFound(request.params.id);
      if (!isFinished(batch.status)) {
        const cancelled = await cancelOrDeleteBatch({ ...options, results: options.batchResults }, accountId, batch.id);
        await app.audit(request, {
          accountId,
          action: 'batch.cancelled',
          target: { type: 'batch', id: batch.id },
          changes: { deleted: !cancelled },
        });
      }
      return reply.redirect(`${base}/batches`, 303);
    },
  );

  app.get(
    '/batches/:id/archive',
    { config: { access: 'read' }, schema: { hide: true, params: BatchParams } },
    async (request, reply) => {
      const batch = await options.batches.get(request.account!.id, request.params.id);
      if (!batch || !isFinished(batch.status)) throw batchNotFound(request.params.id);
      const archive = await batchArchive(batch, { batches: options.batches, results: options.batchResults });
      return reply
        .type('application/zip')
        .header('Content-Disposition', `attachment; filename="${batch.id}.zip"`)
        .send(archive);
    },
  );
};
