// /api/v1/QRManager/keys: an admin key lists the account's API keys (by maker) and revokes them.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ACTOR_TYPES } from '../../../domain/actor.js';
import { KEY_SCOPES } from '../../../domain/key-scope.js';
import { apiKeyStatus } from '../../../domain/api-key.js';
import { pageOf } from '../../../domain/list-page.js';
import type { ApiKeyRecord } from '../../../domain/ports/key-store.js';
import { listKeys, revokeKey, type ApiKeyDeps } from '../../../services/api-keys.js';
import { keyRevokedEvent } from '../../../services/key-audit.js';
import { COMMON_ERRORS, problemResponses } from '../../openapi/problem.schema.js';
import { callerOf } from './api-key-auth.js';
import { PageQueryFields, pageSchema } from './list-page.js';
import { keyWithScope } from './route-scope.js';

export const ActorSchema = z
  .object({
    type: z
      .enum(ACTOR_TYPES)
      .describe(
        '`member` (portal), `api_key`, `operator` (the qrm command), or `system` (`stripe`: a plan changed by ' +
          "Stripe's billing webhook).",
      ),
    id: z.string().describe("The member's id, the key's id (`key_…`), or `qrm`."),
    label: z.string().describe("The member's e-mail, the key's hint, or `qrm`: never a secret."),
  })
  .meta({ id: 'Actor' });

export const ApiKey = z
  .object({
    id: z.string().describe('`key_…`'),
    name: z.string(),
    hint: z.string().describe('The prefix and last four characters: enough to tell keys apart, never to use one.'),
    status: z.enum(['active', 'expired', 'revoked']),
    scopes: z
      .array(z.enum(KEY_SCOPES))
      .describe('What the key may do; a call outside them is 403 `insufficient_scope`.'),
    expiresAt: z
      .string()
      .nullable()
      .describe('ISO 8601; past it the key answers 401 `expired_api_key`. Null: never expires.'),
    createdAt: z.string().describe('ISO 8601.'),
    createdBy: ActorSchema.nullable().describe('Who made the key; null for keys made before this was recorded.'),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
  })
  .meta({ id: 'ApiKey' });

export function apiKeyView(key: ApiKeyRecord, now: Date): z.infer<typeof ApiKey> {
  return {
    id: key.id,
    name: key.name,
    hint: key.hint,
    status: apiKeyStatus(key, now),
    scopes: key.scopes,
    expiresAt: key.expiresAt?.toISOString() ?? null,
    createdAt: key.createdAt.toISOString(),
    createdBy: key.createdBy ?? null,
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
  };
}

const ListKeysQuery = z.strictObject({
  ...PageQueryFields,
  createdBy: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("Only the keys this actor made: a member's id, or `qrm` for the operator's."),
});

const AUTH_ERRORS = ['missing_api_key', 'invalid_api_key', 'expired_api_key', 'insufficient_scope'] as const;
const tags = ['API keys'];

export const keysRoute: FastifyPluginAsyncZod<ApiKeyDeps> = async (app, deps) => {
  app.get(
    '/QRManager/keys',
    {
      schema: {
        operationId: 'listApiKeys',
        summary: "List the account's API keys, newest first (the secrets are never shown again)",
        tags,
        security: keyWithScope('admin'),
        querystring: ListKeysQuery,
        response: {
          200: pageSchema(ApiKey),
          ...problemResponses(['invalid_request', ...AUTH_ERRORS, ...COMMON_ERRORS]),
        },
      },
    },
    async (request) => {
      const { createdBy, ...page } = request.query;
      const listed = pageOf(await listKeys(deps, callerOf(request).accountId, { createdBy }), page);
      const now = deps.clock();
      return { items: listed.items.map((key) => apiKeyView(key, now)), nextCursor: listed.nextCursor };
    },
  );

  app.delete(
    '/QRManager/keys/:id',
    {
      config: { audit: ['api_key.revoked'] },
      schema: {
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key',
        description:
          'Requests that send it are refused (401 `invalid_api_key`) within a second, on every instance. ' +
          'Revoking twice keeps the first time.',
        tags,
        security: keyWithScope('admin'),
        params: z.object({ id: z.string().min(1).max(100) }),
        response: { 200: ApiKey, ...problemResponses(['not_found', ...AUTH_ERRORS, ...COMMON_ERRORS]) },
      },
    },
    async (request) => {
      const key = await revokeKey(deps, callerOf(request).accountId, request.params.id);
      await app.audit(request, { ...keyRevokedEvent(key), plan: callerOf(request).plan });
      return apiKeyView(key, deps.clock());
    },
  );
};
