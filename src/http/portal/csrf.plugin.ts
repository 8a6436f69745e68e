// CSRF for the portal: @fastify/csrf-protection with its secret kept in our server-side session.
import csrfProtection from '@fastify/csrf-protection';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../../domain/errors.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * preHandler for every state-changing route: the request must carry a token of this session,
     * in the `_csrf` form field or the `X-CSRF-Token` header.
     */
    requireCsrf(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void;
  }
}

/** The plugin's own refusals, told apart by code so the portal can answer them as 403 `forbidden`. */
export function isCsrfRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'FST_CSRF_INVALID_TOKEN' || code === 'FST_CSRF_MISSING_SECRET';
}

export const CSRF_REFUSED =
  'this form or request did not carry a valid CSRF token for your session; reload the page and try again';

async function csrf(app: FastifyInstance): Promise<void> {
  // "@fastify/session" mode reads the secret from request.session[sessionKey]: our session plays that part.
  await app.register(csrfProtection, { sessionPlugin: '@fastify/session', sessionKey: 'csrfSecret' });
  app.decorate('requireCsrf', function (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    if (!request.session) {
      done(new ApiError('forbidden', CSRF_REFUSED));
      return;
    }
    app.csrfProtection(request, reply, done);
  });
}

export default fp(csrf, { name: 'portal-csrf', dependencies: ['portal-session'] });
