// /api/v1/QRManager/signing-keys: create (the secret shown once), list and revoke the keys that sign image URLs.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { SigningKeyRecord } from '../../../domain/ports/signing-key-store.js';
import { MAX_ACTIVE_SIGNING_KEYS, SIGNING_KEY_NAME_MAX } from '../../../domain/signed-url.js';
import { createSigningKey, revokeSigningKey, type SigningKeyDeps } from '../../../services/signing-keys.js';
import { header } from '../../openapi/operation-doc.js';
import { COMMON_ERRORS, problemResponses } from '../../openapi/problem.schema.js';
import { callerOf } from './api-key-auth.js';
import { pageOf } from '../../../domain/list-page.js';
import { PageQuery, pageSchema } from './list-page.js';
import { label } from './label.js';
import { keyWithScope } from './route-scope.js';

const SigningKey = z
  .object({
    id: z.string().describe('`sk_…`: the first segment after /i/ in the URLs it signs.'),
    name: z.string(),
    createdAt: z.string().describe('ISO 8601.'),
    revokedAt: z
      .string()
      .nullable()
      .describe('ISO 8601; null while active. URLs signed by a revoked key answer 403 `invalid_signature`.'),
  })
  .meta({ id: 'SigningKey' });

const CreatedSigningKey = z
  .object({
    id: z.string(),
    secret: z.string().describe('`qrs_…`: shown in this answer only. The HMAC key is this whole string as UTF-8.'),
    name: z.string(),
    createdAt: z.string().describe('ISO 8601.'),
  })
  .meta({ id: 'CreatedSigningKey' });

function view(key: SigningKeyRecord): z.infer<typeof SigningKey> {
  return {
    id: key.id,
    name: key.name,
    createdAt: key.createdAt.toISOString(),
    revokedAt: key.revokedAt ? key.revokedAt.toISOString() : null,
  };
}

const AUTH_ERRORS = ['missing_api_key', 'invalid_api_key', 'expired_api_key', 'insufficient_scope'] as const;

export const signingKeysRoute: FastifyPluginAsyncZod<SigningKeyDeps> = async (app, deps) => {
  app.post(
    '/QRManager/signing-keys',
    {
      config: { audit: ['signing_key.created'] },
      schema: {
        operationId: 'createSigningKey',
        summary: 'Create a signing key for signed image URLs',
        description:
          `The secret is in this answer only (stored encrypted, never shown again). At most ` +
          `${MAX_ACTIVE_SIGNING_KEYS} active signing keys per account; ` +
          'past that, 409 `key_limit_reached`.',
        tags: ['signed URLs'],
        security: keyWithScope('signing-keys'),
        body: z
          .strictObject({
            name: label(SIGNING_KEY_NAME_MAX).optional().describe('A label for you (default "default").'),
          })
          .optional(),
        response: {
          201: CreatedSigningKey,
          ...problemResponses([
            'invalid_request',
            'key_limit_reached',
            'unsupported_media_type',
            'payload_too_large',
            ...AUTH_ERRORS,
            ...COMMON_ERRORS,
          ]),
        },
        'x-document': { headers: { '201': { Location: header.location('The new signing key.') } } },
      },
    },
    async (request, reply) => {
      const { key, secret } = await createSigningKey(deps, callerOf(request).accountId, request.body?.name);
      await app.audit(request, {
        accountId: callerOf(request).accountId,
        plan: callerOf(request).plan,
        action: 'signing_key.created',
        target: { type: 'signing_key', id: key.id },
        changes: { name: key.name },
      });
      return reply
        .code(201)
        .header('Location', `/api/v1/QRManager/signing-keys/${key.id}`)
        .send({ id: key.id, secret, name: key.name, createdAt: key.createdAt.toISOString() });
    },
  );

  app.get(
    '/QRManager/signing-keys',
    {
      schema: {
        operationId: 'listSigningKeys',
        summary: "List the account's signing keys, newest first",
        tags: ['signed URLs'],
        security: keyWithScope('signing-keys'),
        querystring: PageQuery,
        response: {
          200: pageSchema(SigningKey),
          ...problemResponses(['invalid_request', ...AUTH_ERRORS, ...COMMON_ERRORS]),
        },
      },
    },
    async (request) => {
      const page = pageOf(await deps.signingKeys.list(callerOf(request).accountId), request.query);
      return { items: page.items.map(view), nextCursor: page.nextCursor };
    },
  );

  app.delete(
    '/QRManager/signing-keys/:id',
    {
      config: { audit: ['signing_key.revoked'] },
      schema: {
        operationId: 'revokeSigningKey',
        summary: 'Revoke a signing key',
        description:
          'Every URL it signed answers 403 `invalid_signature` within a second, on every instance (copies ' +
          'already in a CDN or browser cache live out their max-age).',
        tags: ['signed URLs'],
        security: keyWithScope('signing-keys'),
        params: z.object({ id: z.string().min(1).max(64) }),
        response: { 200: SigningKey, ...problemResponses(['not_found', ...AUTH_ERRORS, ...COMMON_ERRORS]) },
      },
    },
    async (request) => {
      const key = await revokeSigningKey(deps, callerOf(request).accountId, request.params.id);
      await app.audit(request, {
        accountId: callerOf(request).accountId,
        plan: callerOf(request).plan,
        action: 'signing_key.revoked',
        target: { type: 'signing_key', id: key.id },
      });
      return view(key);
    },
  );
};
