// Portal session hook: the session cookie resolved to its server-side session on every portal request.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Session } from '../../domain/ports/session-store.js';
import { resolveSession, type IssuedSession, type SessionDeps } from '../../services/sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The live portal session, if the browser has one (signed in, or with a sign-in in progress). */
    session: Session | undefined;
    /** The cookie value behind `session`: needed to end or rotate it. */
    sessionToken: string | undefined;
  }
  interface FastifyReply {
    /** Sets the cookie for a newly opened session. */
    setSessionCookie(issued: IssuedSession): FastifyReply;
    clearSessionCookie(): FastifyReply;
  }
}

export interface SessionPluginOptions extends SessionDeps {
  /** PUBLIC_URL is https: the cookie is always Secure and takes the `__Host-` prefix. */
  secure: boolean;
}

/** `__Host-` cookies cannot be planted by a sibling subdomain or over plain http. */
export function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-qrm_session' : 'qrm_session';
}

async function sessionPlugin(app: FastifyInstance, options: SessionPluginOptions): Promise<void> {
  const name = sessionCookieName(options.secure);
  const attributes = (request: FastifyRequest) => ({
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    // Behind a TLS-terminating proxy Fastify reports https only when trustProxy is on.
    secure: options.secure || request.protocol === 'https',
  });

  app.decorateRequest('session', undefined);
  app.decorateRequest('sessionToken', undefined);
  app.decorateReply('setSessionCookie', function (this: FastifyReply, issued: IssuedSession) {
    const maxAge = Math.max(
      1,
      Math.floor((issued.session.expiresAt.getTime() - issued.session.createdAt.getTime()) / 1000),
    );
    return this.setCookie(name, issued.token, { ...attributes(this.request), maxAge });
  });
  app.decorateReply('clearSessionCookie', function (this: FastifyReply) {
    return this.clearCookie(name, attributes(this.request));
  });

  app.addHook('onRequest', async (request, reply) => {
    const token = request.cookies[name];
    if (token === undefined) return;
    const session = await resolveSession(options, token);
    if (!session) {
      // Expired, signed out elsewhere, or never ours: drop the stale cookie.
      reply.clearSessionCookie();
      return;
    }
    request.session = session;
    request.sessionToken = token;
  });
}

export default fp(sessionPlugin, { name: 'portal-session', dependencies: ['@fastify/cookie'] });
