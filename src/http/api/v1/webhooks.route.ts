// /api/v1/QRManager/webhooks: an account's webhooks — register an endpoint for `code.scanned` or `domain.suspended`,
// list them, delete one.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  SCAN_WEBHOOK_EVENTS,
  type ScanWebhookEndpoint,
  type ScanWebhookStore,
} from '../../../domain/ports/scan-webhooks.js';
import { createScanWebhook, deleteScanWebhook, SCAN_WEBHOOK_LIMIT } from '../../../services/scan-webhooks.js';
import { header } from '../../openapi/operation-doc.js';
import { ApiError } from '../../../domain/errors.js';
import { rotateWebhookSecret, type WebhookSecretDeps } from '../../../services/webhook-secret.js';
import { COMMON_ERRORS, problemResponses } from '../../openapi/problem.schema.js';
import { callerOf } from './api-key-auth.js';
import { WebhookUrl } from './batches.schema.js';
import { pageOf } from '../../../domain/list-page.js';
import { PageQuery, pageSchema } from './list-page.js';
import { keyWithScope } from './route-scope.js';

export interface WebhooksRouteDeps {
  scanWebhooks: ScanWebhookStore;
  /** Where the account's signing secret is kept; absent where this deployment sends no webhooks. */
  secrets: WebhookSecretDeps['secrets'] | undefined;
  clock: () => Date;
}

const SECRET_DOC =
  'The signing secret of your account (`whsec_…`, Standard Webhooks): every webhook of the account (scans, ' +
  'domains, batches) is signed with it. ' +
  'Shown in this answer and when rotated; keep it, the API does not show it again.';

const Webhook = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.enum(SCAN_WEBHOOK_EVENTS)),
    createdAt: z.string().describe('ISO 8601.'),
  })
  .meta({ id: 'ScanWebhook' });

const CreatedWebhook = Webhook.extend({ secret: z.string().optional().describe(SECRET_DOC) }).meta({
  id: 'CreatedScanWebhook',
});

const RotatedSecret = z
  .object({
    secret: z.string().describe('The new signing secret (`whsec_…`), shown only here.'),
    previousValidUntil: z
      .string()
      .describe(
        'ISO 8601. Until then each webhook carries two `v1,` signatures in `webhook-signature`, one per secret ' +
          '(as Standard Webhooks allows), ' +
          ('so a receiver may switch secrets at any moment of the overlap; a secret rotated away earlier stops ' +
            'signing at once.'),
      ),
  })
  .meta({ id: 'RotatedWebhookSecret' });

const CreateWebhookBody = z.strictObject({
  url: WebhookUrl.describe(
    'Receives a signed POST (Standard Webhooks) at most once a second, carrying the scans since the last.',
  ),
  events: z
    .array(z.enum(SCAN_WEBHOOK_EVENTS))
    .min(1)
    .max(SCAN_WEBHOOK_EVENTS.length)
    .describe(
      'The events to receive: `code.scanned` (the scans since the last message), `domain.suspended` (a custom ' +
        'domain whose DNS proof was gone).',
    ),
});

const WebhookParams = z.object({ id: z.string().min(1).max(64).describe('The webhook id.') });

function view(endpoint: ScanWebhookEndpoint): z.infer<typeof Webhook> {
  return { id: endpoint.id, url: endpoint.url, events: endpoint.events, createdAt: endpoint.createdAt.toISOString() };
}

const AUTH = ['missing_api_key', 'invalid_api_key', 'expired_api_key', 'insufficient_scope', ...COMMON_ERRORS] as const;
const tags = ['webhooks'];
const security = keyWithScope('webhooks');

export const webhooksRoute: FastifyPluginAsyncZod<WebhooksRouteDeps> = async (app, deps) => {
  app.post(
    '/QRManager/webhooks',
    {
      config: { audit: ['webhook.created'] },
      schema: {
        operationId: 'createScanWebhook',
        summary: 'Register a scan webhook',
        description:
          `At most ${SCAN_WEBHOOK_LIMIT} per account. Each endpoint gets at most one POST a second carrying ` +
          `every scan of the account's codes since ` +
          ('the last (per code: scans and the device split), signed the Standard Webhooks way with the account ' +
            'secret the batch webhooks use; ') +
          ('retried with backoff, under the same address rules as batch webhooks (no private or loopback ' +
            'addresses unless the operator allows them).'),
        tags,
        security,
        body: CreateWebhookBody,
        response: {
          201: CreatedWebhook,
          ...problemResponses([
            'invalid_request',
            'webhook_limit_reached',
            'payload_too_large',
            'unsupported_media_type',
            ...AUTH,
          ]),
        },
        'x-document': { headers: { '201': { Location: header.location('The new webhook.') } } },
      },
    },
    async (request, reply) => {
      const { accountId } = callerOf(request);
      const created = await createScanWebhook(deps, accountId, request.body);
      await app.audit(request, {
        accountId,
        plan: callerOf(request).plan,
        action: 'webhook.created',
        target: { type: 'webhook', id: created.id },
        changes: { url: created.url },
      });
      const secret = deps.secrets ? { secret: await deps.secrets.webhookSecret(accountId) } : {};
      return reply
        .code(201)
        .header('Location', `${request.url}/${created.id}`)
        .send({ ...view(created), ...secret });
    },
  );

  app.post(
    '/QRManager/webhooks/secret/rotate',
    {
      config: { audit: ['webhook.secret_rotated'] },
      schema: {
        operationId: 'rotateWebhookSecret',
        summary: 'Rotate the webhook signing secret',
        description:
          'Makes a new signing secret for every webhook of the account and shows it once. For 24 hours both ' +
          'the new and the replaced secret ' +
          'sign every message (two `v1,` signatures); then only the new one.',
        tags,
        security,
        response: { 200: RotatedSecret, ...problemResponses(['unavailable', ...AUTH]) },
      },
    },
    async (request) => {
      if (!deps.secrets) throw new ApiError('unavailable', 'this deployment sends no webhooks');
      const { accountId, plan } = callerOf(request);
      const rotated = await rotateWebhookSecret({ secrets: deps.secrets, clock: deps.clock }, accountId);
      const previousValidUntil = rotated.previousValidUntil.toISOString();
      await app.audit(request, {
        accountId,
        plan,
        action: 'webhook.secret_rotated',
        target: { type: 'webhook_secret', id: accountId },
        changes: { previousValidUntil },
      });
      return { secret: rotated.secret, previousValidUntil };
    },
  );

  app.get(
    '/QRManager/webhooks',
    {
      schema: {
        operationId: 'listScanWebhooks',
        summary: 'List your scan webhooks, newest first',
        tags,
        security,
        querystring: PageQuery,
        response: { 200: pageSchema(Webhook), ...problemResponses(['invalid_request', ...AUTH]) },
      },
    },
    async (request) => {
      const page = pageOf(await deps.scanWebhooks.list(callerOf(request).accountId), request.query);
      return { items: page.items.map(view), nextCursor: page.nextCursor };
    },
  );

  app.delete(
    '/QRManager/webhooks/:id',
    {
      config: { audit: ['webhook.deleted'] },
      schema: {
        operationId: 'deleteScanWebhook',
        summary: 'Delete a scan webhook',
        tags,
        security,
        params: WebhookParams,
        response: {
          204: z.null().describe('Deleted.'),
          ...problemResponses(['invalid_request', 'not_found', ...AUTH]),
        },
      },
    },
    async (request, reply) => {
      await deleteScanWebhook(deps, callerOf(request).accountId, request.params.id);
      await app.audit(request, {
        accountId: callerOf(request).accountId,
        plan: callerOf(request).plan,
        action: 'webhook.deleted',
        target: { type: 'webhook', id: request.params.id },
      });
      return reply.code(204).send(null);
    },
  );
};
