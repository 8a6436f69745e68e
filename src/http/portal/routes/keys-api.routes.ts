// JSON API for scripts under the portal session: the session, and list / create / revoke keys. Errors are problem+json.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { MAX_ACTIVE_KEYS } from '../../../domain/api-key.js';
import type { ApiKeyRecord } from '../../../domain/ports/key-store.js';
import { issueKey, KEY_NAME_MAX_LENGTH, listKeys, revokeKey, type ApiKeyDeps } from '../../../services/api-keys.js';
import { KEY_SCOPES } from '../../../domain/key-scope.js';
import { portalActor, portalAuditContext } from './keys.routes.js';
import { appendAudit, type AuditDeps } from '../../../services/audit-log.js';
import { keyCreatedEvent, keyRevokedEvent } from '../../../services/key-audit.js';
import { ApiKey, apiKeyView } from '../../api/v1/keys.route.js';
import type { PortalRateLimits } from '../rate-limits.js';

export interface KeysApiRoutesOptions {
  base: string;
  deps: ApiKeyDeps & AuditDeps;
  limits: Pick<PortalRateLimits, 'keyCreation'>;
}

/** A key as the API's `ApiKey` shows it, less its maker: a script under the session lists its own account's keys. */
const KeyView = ApiKey.omit({ createdBy: true });

function keyView(key: ApiKeyRecord, now: Date): z.infer<typeof KeyView> {
  const { createdBy: _maker, ...view } = apiKeyView(key, now);
  return view;
}

export const keysApiRoutes: FastifyPluginAsyncZod<KeysApiRoutesOptions> = async (app, options) => {
  const { deps } = options;
  // Reads need the session; writes need the session and its CSRF token in the X-CSRF-Token header, both before the body
  // is read.
  const write = { onRequest: app.requireCsrf };

  app.get(
    '/api/session',
    {
      config: { access: 'member' },
      schema: {
        hide: true,
        response: {
          200: z.object({
            account: z.object({ id: z.string(), email: z.string(), plan: z.string() }),
            csrfToken: z.string(),
          }),
        },
      },
    },
    async (request, reply) => {
      const account = request.account!;
      reply.header('Cache-Control', 'no-store');
      return { account: { id: account.id, email: account.email, plan: account.plan }, csrfToken: reply.generateCsrf() };
    },
  );

  app.get(
    '/api/keys',
    {
      config: { access: 'read' },
      schema: { hide: true, response: { 200: z.object({ keys: z.array(KeyView), maxActive: z.number() }) } },
    },
    async (request) => {
      const keys = await listKeys(deps, request.account!.id);
      const now = deps.clock();
      return { keys: keys.map((key) => keyView(key, now)), maxActive: MAX_ACTIVE_KEYS };
    },
  );

  app.post(
    '/api/keys',
    {
      config: { access: 'keys.manage', audit: ['api_key.created'] },
      schema: {
        hide: true,
        body: z.strictObject({
          name: z.string().max(KEY_NAME_MAX_LENGTH).optional(),
          scopes: z.array(z.string().max(64)).max(KEY_SCOPES.length).optional(),
          expiresAt: z.iso.datetime({ offset: true }).optional(),
        }),
        response: { 201: z.object({ secret: z.string(), key: KeyView }) },
      },
      // Counted once the session and its CSRF token are checked: anonymous or forged requests spend no one's budget.
      ...write,
      preHandler: options.limits.keyCreation,
    },
    async (request, reply) => {
      const { name, scopes, expiresAt } = request.body;
      const issued = await issueKey(deps, request.account!.id, name, {
        scopes,
        expiresAt: expiresAt === undefined ? undefined : new Date(expiresAt),
        createdBy: portalActor(request),
        makerRole: request.member!.role,
      });
      await appendAudit(deps, portalAuditContext(request), keyCreatedEvent(issued.key));
      reply.header('Cache-Control', 'no-store');
      return reply.code(201).send({ secret: issued.secret, key: keyView(issued.key, deps.clock()) });
    },
  );

  app.delete(
    '/api/keys/:id',
    {
      config: { access: 'keys.manage', audit: ['api_key.revoked'] },
      schema: {
        hide: true,
        params: z.object({ id: z.string().min(1).max(100) }),
        response: { 200: z.object({ key: KeyView }) },
      },
      ...write,
    },
    async (request) => {
      const revoked = await revokeKey(deps, request.account!.id, request.params.id);
      await appendAudit(deps, portalAuditContext(request), keyRevokedEvent(revoked));
      return { key: keyView(revoked, deps.clock()) };
    },
  );
};
