// API key pages: list, create (the secret shown once), revoke — every operation scoped to the signed-in account.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { MAX_ACTIVE_KEYS } from '../../../domain/api-key.js';
import { ApiError } from '../../../domain/errors.js';
import { issueKey, KEY_NAME_MAX_LENGTH, listKeys, revokeKey, type ApiKeyDeps } from '../../../services/api-keys.js';
import { requireAccount } from '../account-guard.js';
import { renderPage } from '../page.js';
import type { PortalRateLimits } from '../rate-limits.js';

export interface KeysRoutesOptions {
  base: string;
  deps: ApiKeyDeps;
  limits: Pick<PortalRateLimits, 'keyCreation'>;
}

/** Fixed notices chosen by a code in the query string: nothing from the URL is echoed. */
const NOTICES = { revoked: 'The key was revoked. Requests that send it are refused from now on.' } as const;

const KeysQuery = z.object({ notice: z.string().max(32).optional() });
const CreateKeyForm = z.object({ name: z.string().max(1000).optional(), _csrf: z.string().optional() });
const KeyParams = z.object({ id: z.string().min(1).max(100) });

export const keysRoutes: FastifyPluginAsyncZod<KeysRoutesOptions> = async (app, options) => {
  const { base, deps } = options;
  const guard = requireAccount({ accounts: deps.accounts, base });

  const keysPage = async (request: FastifyRequest, reply: FastifyReply, extra: { error?: string; notice?: string; name?: string } = {}, status = 200) => {
    const keys = await listKeys(deps, request.account!.id);
    const activeCount = keys.filter((key) => !key.revokedAt).length;
    return renderPage(
      request,
      reply,
      'keys',
      {
        title: 'API keys',
        nav: 'keys',
        keys,
        activeCount,
        maxKeys: MAX_ACTIVE_KEYS,
        limitReached: activeCount >= MAX_ACTIVE_KEYS,
        nameMaxLength: KEY_NAME_MAX_LENGTH,
        ...extra,
      },
      status,
    );
  };

  app.get('/keys', { schema: { hide: true, querystring: KeysQuery }, preHandler: guard }, async (request, reply) => {
    const code = request.query.notice;
    const notice = code !== undefined && Object.hasOwn(NOTICES, code) ? NOTICES[code as keyof typeof NOTICES] : undefined;
    return keysPage(request, reply, { notice });
  });

  app.post(
    '/keys',
    { schema: { hide: true, body: CreateKeyForm }, onRequest: guard, preHandler: [app.requireCsrf, options.limits.keyCreation] },
    async (request, reply) => {
      try {
        const issued = await issueKey(deps, request.account!.id, request.body.name || undefined);
        // Rendered in this response and nowhere else: the secret is never stored, so it cannot be shown again.
        return renderPage(
          request,
          reply,
          'key-created',
          { title: 'Key created', nav: 'keys', secret: issued.secret, key: issued.key, apiOrigin: `${request.protocol}://${request.host}` },
          201,
        );
      } catch (error) {
        if (!(error instanceof ApiError) || (error.code !== 'key_limit_reached' && error.code !== 'invalid_request')) throw error;
        return keysPage(request, reply, { error: error.message, name: request.body.name }, error.status);
      }
    },
  );

  app.post('/keys/:id/revoke', { schema: { hide: true, params: KeyParams }, onRequest: guard, preHandler: app.requireCsrf }, async (request, reply) => {
    await revokeKey(deps, request.account!.id, request.params.id);
    return reply.redirect(`${base}/keys?notice=revoked`, 303);
  });
};
