// Sign-in page, local sign-in (no provider configured, loopback only) and sign-out.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { returnPathIn } from '../return-path.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../../domain/errors.js';
import { endAllSessions, endSession } from '../../../services/sessions.js';
import { localSignIn, openSignInFormSession, type SignInDeps } from '../../../services/sign-in.js';
import { isDirectLoopbackRequest, isSameOriginRequest } from '../loopback.js';
import { renderPage } from '../page.js';
import type { PortalRateLimits } from '../rate-limits.js';
import { PROVIDER_LABELS, type ProviderStatus } from '../providers.js';
import { requireSession } from '../write-owner.js';

export interface SignInRoutesOptions {
  base: string;
  deps: SignInDeps;
  /** Configured providers and whether each answered discovery. */
  providers: ProviderStatus;
  /** True only when no provider is configured (the embedded default). */
  localSignInEnabled: boolean;
  limits: Pick<PortalRateLimits, 'signInStart'>;
}

const LocalSignInBody = z.object({
  email: z.string().max(320),
  next: z.string().max(200).optional(),
  _csrf: z.string().optional(),
});
const SignInQuery = z.object({ next: z.string().max(200).optional() });

export const signInRoutes: FastifyPluginAsyncZod<SignInRoutesOptions> = async (app, options) => {
  const { base, deps } = options;

  const returnTo = (next: string | undefined) => returnPathIn(base, next);

  const signInPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { error?: string; email?: string; next?: string | undefined } = {},
    status = 200,
  ) => {
    const local = options.localSignInEnabled && isDirectLoopbackRequest(request);
    if (local && !request.session) {
      // The local form posts, so it needs a CSRF token, so it needs a session before anyone is signed in.
      const issued = await openSignInFormSession(deps);
      reply.setSessionCookie(issued);
      request.session = issued.session;
      request.sessionToken = issued.token;
    }
    const providers = [...options.providers].map(([id, state]) => ({
      id,
      label: PROVIDER_LABELS[id],
      ready: state === 'ready',
    }));
    return renderPage(
      request,
      reply,
      'signin',
      { title: 'Sign in', nav: 'signin', providers, local, localSignInEnabled: options.localSignInEnabled, ...extra },
      status,
    );
  };

  app.get(
    '/signin',
    { config: { access: 'public' }, schema: { hide: true, querystring: SignInQuery } },
    async (request, reply) => {
      const next = returnTo(request.query.next);
      if (request.session?.accountId !== undefined) return reply.redirect(next ?? `${base}/`, 303);
      return signInPage(request, reply, { next });
    },
  );

  if (options.localSignInEnabled) {
    const loopbackOnly = async (request: FastifyRequest) => {
      if (!isDirectLoopbackRequest(request)) {
        throw new ApiError(
          'forbidden',
          'local sign-in is offered only to browsers on this machine at http://localhost; ' +
            'configure Google or Microsoft sign-in to sign in from elsewhere',
        );
      }
      // A page of another site cannot post here even through a loopback name (a form, or a rebound hostname's script).
      if (!isSameOriginRequest(request))
        throw new ApiError('forbidden', 'local sign-in must be posted from the sign-in page of this portal');
    };
    app.post(
      '/auth/local',
      {
        config: { access: 'public', audit: { exempt: 'signs a browser in: sessions are not account changes' } },
        schema: { hide: true, body: LocalSignInBody },
        onRequest: requireSession,
        preHandler: [loopbackOnly, app.requireCsrf, options.limits.signInStart],
      },
      async (request, reply) => {
        try {
          const signedIn = await localSignIn(deps, request.sessionToken, request.body.email);
          reply.setSessionCookie(signedIn.session);
          return await reply.redirect(returnTo(request.body.next) ?? `${base}/`, 303);
        } catch (error) {
          if (!(error instanceof ApiError) || error.code !== 'invalid_request') throw error;
          return signInPage(
            request,
            reply,
            { error: error.message, email: request.body.email, next: returnTo(request.body.next) },
            400,
          );
        }
      },
    );
  }

  app.post(
    '/signout',
    {
      config: { access: 'public', audit: { exempt: 'signs a browser out: sessions are not account changes' } },
      schema: { hide: true },
      onRequest: requireSession,
      preHandler: app.requireCsrf,
    },
    async (request, reply) => {
      await endSession(deps, request.sessionToken);
      reply.clearSessionCookie();
      return reply.redirect(`${base}/signin`, 303);
    },
  );

  const everywhere = {
    access: 'member' as const,
    audit: { exempt: "ends the identity's own sessions: not an account change" },
  };
  app.post(
    '/signout/everywhere',
    { config: everywhere, schema: { hide: true }, preHandler: app.requireCsrf },
    async (request, reply) => {
      await endAllSessions(deps, request.account!.id);
      reply.clearSessionCookie();
      return reply.redirect(`${base}/signin`, 303);
    },
  );
};
