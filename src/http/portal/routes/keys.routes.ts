// API key pages: list, create (the secret shown once), revoke — every operation scoped to the signed-in account.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { MAX_ACTIVE_KEYS } from '../../../domain/api-key.js';
import type { Actor } from '../../../domain/actor.js';
import { ApiError } from '../../../domain/errors.js';
import { KEY_SCOPES } from '../../../domain/key-scope.js';
import { scopesRoleAllows } from '../../../domain/role-scopes.js';
import { roleAllows } from '../../../domain/roles.js';
import { issueKey, KEY_NAME_MAX_LENGTH, listKeys, revokeKey, type ApiKeyDeps } from '../../../services/api-keys.js';
import { appendAudit, type AuditDeps } from '../../../services/audit-log.js';
import { keyCreatedEvent, keyRevokedEvent } from '../../../services/key-audit.js';
import type { AuditContext } from '../../../domain/audit.js';
import { noticeFrom, NoticeQuery } from '../notices.js';
import { renderPage } from '../page.js';
import type { PortalRateLimits } from '../rate-limits.js';

export interface KeysRoutesOptions {
  base: string;
  deps: ApiKeyDeps & AuditDeps;
  limits: Pick<PortalRateLimits, 'keyCreation'>;
}

const NOTICES = { revoked: 'The key was revoked. Requests that send it are refused from now on.' } as const;

const KeysQuery = NoticeQuery.extend({
  /** Keeps the keys one member made (`mem_…`), or the operator's (`qrm`). */
  member: z.string().min(1).max(64).optional(),
});
const CreateKeyForm = z.object({
  name: z.string().max(1000).optional(),
  // A checkbox group posts one value or several; unknown scopes reach the service, which names them in its 400.
  scopes: z.union([z.string().max(64), z.array(z.string().max(64)).max(KEY_SCOPES.length)]).optional(),
  /**
   * Sent by the page's form beside its scope boxes, so no box ticked reads as no scope rather than the default (every
   * scope).
   */
  scopeChoice: z.literal('1').optional(),
  expiresAt: z.string().max(32).optional(),
  _csrf: z.string().optional(),
});
const KeyParams = z.object({ id: z.string().min(1).max(100) });

/** `<input type=datetime-local>`: minutes, or seconds, without a zone (the form says UTC). */
const LOCAL_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?$/;

/** The form's expiry as an instant in UTC; empty: no expiry; anything else an invalid date the service refuses. */
function expiryOf(value: string | undefined): Date | undefined {
  if (value === undefined || value === '') return undefined;
  return LOCAL_INSTANT.test(value) ? new Date(`${value.length === 16 ? `${value}:00` : value}Z`) : new Date(Number.NaN);
}

/** Who acts in the portal: the member signed in (its id in the account in use, the e-mail it signed in with). */
export function portalActor(request: FastifyRequest): Actor {
  return { type: 'member', id: request.member!.id, label: request.signedInAs!.email };
}

/** The signed-in member, their address and browser, as the audit log records them. */
export function portalAuditContext(request: FastifyRequest): AuditContext {
  return { actor: portalActor(request), ip: request.ip ?? null, userAgent: request.headers['user-agent'] ?? null };
}

export const keysRoutes: FastifyPluginAsyncZod<KeysRoutesOptions> = async (app, options) => {
  const { base, deps } = options;

  const keysPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: {
      error?: string;
      notice?: string;
      name?: string;
      checked?: string[];
      expiresAt?: string;
      member?: string;
    } = {},
    status = 200,
  ) => {
    const all = await listKeys(deps, request.account!.id);
    const keys = extra.member === undefined ? all : all.filter((key) => key.createdBy?.id === extra.member);
    const activeCount = all.filter((key) => !key.revokedAt).length;
    const role = request.member!.role;
    const allowedScopes = scopesRoleAllows(role);
    const makers = [
      ...new Map(all.flatMap((key) => (key.createdBy ? [[key.createdBy.id, key.createdBy]] : []))).values(),
    ];
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
        allScopes: KEY_SCOPES,
        allowedScopes,
        checked: allowedScopes,
        canCreate: roleAllows(role, 'keys.manage'),
        makers,
        makerFilter: extra.member,
        makerLabel: extra.member === undefined ? undefined : makers.find((maker) => maker.id === extra.member)?.label,
        now: deps.clock(),
        ...extra,
      },
      status,
    );
  };

  app.get(
    '/keys',
    { config: { access: 'read' }, schema: { hide: true, querystring: KeysQuery } },
    async (request, reply) => {
      const notice = noticeFrom(NOTICES, request.query.notice);
      return keysPage(request, reply, { notice, member: request.query.member });
    },
  );

  app.post(
    '/keys',
    {
      config: { access: 'keys.manage', audit: ['api_key.created'] },
      schema: { hide: true, body: CreateKeyForm },
      preHandler: [app.requireCsrf, options.limits.keyCreation],
    },
    async (request, reply) => {
      try {
        const { scopes, scopeChoice } = request.body;
        const issued = await issueKey(deps, request.account!.id, request.body.name || undefined, {
          // No box ticked is an empty list, which the service refuses: a key that can do nothing is a mistake.
          scopes:
            scopes === undefined ? (scopeChoice ? [] : undefined) : typeof scopes === 'string' ? [scopes] : scopes,
          expiresAt: expiryOf(request.body.expiresAt),
          createdBy: portalActor(request),
          makerRole: request.member!.role,
        });
        await appendAudit(deps, portalAuditContext(request), keyCreatedEvent(issued.key));
        // Rendered in this response and nowhere else: the secret is never stored, so it cannot be shown again.
        return renderPage(
          request,
          reply,
          'key-created',
          {
            title: 'Key created',
            nav: 'keys',
            secret: issued.secret,
            key: issued.key,
            apiOrigin: `${request.protocol}://${request.host}`,
          },
          201,
        );
      } catch (error) {
        const shown = ['key_limit_reached', 'invalid_request', 'insufficient_role'];
        if (!(error instanceof ApiError) || !shown.includes(error.code)) throw error;
        const { scopes, name, expiresAt } = request.body;
        const checked = scopes === undefined ? [] : typeof scopes === 'string' ? [scopes] : scopes;
        return keysPage(request, reply, { error: error.message, name, checked, expiresAt }, error.status);
      }
    },
  );

  app.post(
    '/keys/:id/revoke',
    {
      config: { access: 'keys.manage', audit: ['api_key.revoked'] },
      schema: { hide: true, params: KeyParams },
      preHandler: app.requireCsrf,
    },
    async (request, reply) => {
      const revoked = await revokeKey(deps, request.account!.id, request.params.id);
      await appendAudit(deps, portalAuditContext(request), keyRevokedEvent(revoked));
      return reply.redirect(`${base}/keys?notice=revoked`, 303);
    },
  );
};
