// onRequest for every state-changing portal request: its session (and a CSRF token sent as a header) checked before a
// byte of the body is read.
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import { SIGN_IN_FIRST } from './account-guard.js';
import { CSRF_REFUSED } from './csrf.plugin.js';

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The headers @fastify/csrf-protection reads a token from when the body has none. */
const TOKEN_HEADERS = ['x-csrf-token', 'csrf-token', 'x-xsrf-token', 'xsrf-token'];

/**
 * Refuses, before the body: a write without a live session (401 on the JSON API, 403 but for a form, which its route's
 * own
 * onRequest answers: no token of it can be valid, and SameSite=Lax keeps the cookie off other sites' posts), a write a
 * browser marks as from another site, and any write but a url-encoded form without a valid token of this session in its
 * header. A form's `_csrf` field is checked once the form is read, by each route's `requireCsrf`; the route's own
 * onRequest checks the signed-in account (requireAccount) or the session (requireSession) before that.
 */
export function refuseUnownedWrites(app: FastifyInstance) {
  return function (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    if (!UNSAFE_METHODS.has(request.method) || request.is404) return done();
    const form = (request.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');
    if (!request.session) {
      if (request.url.startsWith(`${app.prefix}/api/`)) return done(new ApiError('unauthorized', SIGN_IN_FIRST));
      // A form goes on to its route's own onRequest (requireAccount sends it to sign-in, requireSession refuses it).
      return form ? done() : done(new ApiError('forbidden', CSRF_REFUSED));
    }
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin') return done(new ApiError('forbidden', CSRF_REFUSED));
    if (!form || TOKEN_HEADERS.some((name) => request.headers[name] !== undefined))
      return app.requireCsrf(request, reply, done);
    done();
  };
}

/** onRequest of a write that needs a session but no account (local sign-in, sign-out): none, 403 before the body. */
export async function requireSession(request: FastifyRequest): Promise<void> {
  if (!request.session) throw new ApiError('forbidden', CSRF_REFUSED);
}
