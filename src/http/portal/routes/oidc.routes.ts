// Sign-in with Google or Microsoft: @fastify/oauth2 (PKCE S256, state) on the endpoints discovered at start-up; the
// id_token checked by its verifier.
import oauth2, { type OAuth2Namespace } from '@fastify/oauth2';
import { PROVIDER_LABELS } from '../providers.js';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { OidcSignIn } from '../../../adapters/contract.js';
import type { OidcProviderConfig } from '../../../config.js';
import { ApiError } from '../../../domain/errors.js';
import type { OidcProvider } from '../../../domain/ports/session-store.js';
import {
  beginProviderSignIn,
  claimPendingSignIn,
  completeProviderSignIn,
  type SignInDeps,
} from '../../../services/sign-in.js';
import type { PortalRateLimits } from '../rate-limits.js';
import { returnPathIn } from '../return-path.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The state of the sign-in being started or, at the callback, the one claimed from the session. */
    oidcState: string | undefined;
  }
}

export interface OidcRoutesOptions {
  provider: OidcProvider;
  client: OidcProviderConfig;
  publicUrl: string;
  base: string;
  /** PUBLIC_URL is https: the plugin's state and PKCE cookies become `__Host-` cookies. */
  secure: boolean;
  deps: SignInDeps;
  /** The provider as discovered at start-up (the composition root did it): endpoints and verifier, or unavailable. */
  signIn: OidcSignIn;
  limits: Pick<PortalRateLimits, 'signInStart' | 'signInCallback'>;
}

const CallbackQuery = z.object({
  code: z.string().max(4096).optional(),
  state: z.string().max(512).optional(),
  error: z.string().max(200).optional(),
  error_description: z.string().max(1000).optional(),
});

const StartQuery = z.object({ next: z.string().max(200).optional() });

/** How long the page to return to is kept for the round trip through the provider. */
const RETURN_COOKIE_SECONDS = 600;

function reasonOf(cause: unknown): string | undefined {
  if (!(cause instanceof Error)) return undefined;
  const code = (cause as { code?: unknown }).code;
  return typeof code === 'string' ? `${code}: ${cause.message}` : cause.message;
}

function stateOf(request: FastifyRequest): unknown {
  return (request.query as { state?: unknown } | undefined)?.state;
}

export const oidcRoutes: FastifyPluginAsyncZod<OidcRoutesOptions> = async (app, options) => {
  const { provider, base, deps } = options;
  const label = PROVIDER_LABELS[provider];
  const start = `/auth/${provider}`;

  const signIn = options.signIn;
  if (signIn.status === 'unavailable') {
    app.get(
      start,
      { config: { access: 'public' }, schema: { hide: true }, onRequest: options.limits.signInStart },
      async () => {
        throw new ApiError(
          'unavailable',
          `${label} sign-in is not available: this server could not reach ${label} when it started. ` +
            `Ask the operator to check ${provider.toUpperCase()}_ISSUER and restart.`,
        );
      },
    );
    return;
  }

  const verifier = signIn.verifier;
  const authorize = new URL(signIn.authorizationEndpoint);
  const token = new URL(signIn.tokenEndpoint);
  app.decorateRequest('oidcState', undefined);
  await app.register(oauth2, {
    name: provider,
    scope: ['openid', 'email', 'profile'],
    credentials: {
      client: { id: options.client.clientId, secret: options.client.clientSecret },
      auth: {
        authorizeHost: authorize.origin,
        authorizePath: authorize.pathname,
        tokenHost: token.origin,
        tokenPath: token.pathname,
      },
    },
    callbackUri: `${options.publicUrl.replace(/\/$/, '')}${base}${start}/callback`,
    pkce: 'S256',
    // The state is made and checked against the server-side session, not the plugin's cookie.
    generateStateFunction: (request: FastifyRequest) => request.oidcState ?? '',
    checkStateFunction: (request: FastifyRequest) =>
      request.oidcState !== undefined && stateOf(request) === request.oidcState,
    // Only the PKCE verifier really lives in a cookie: signed, httpOnly, SameSite=Lax, and `__Host-` under https.
    cookie: { signed: true, secure: options.secure, path: `${base}${start}` },
    hostPrefixedCookies: options.secure,
    redirectStateCookieName: `${options.secure ? '__Host-' : ''}qrm_${provider}_state`,
    verifierCookieName: `${options.secure ? '__Host-' : ''}qrm_${provider}_pkce`,
  });
  const client = app.getDecorator<OAuth2Namespace>(provider);

  // The invitation page to come back to rides the round trip in a signed cookie of its own, checked when set and read.
  const returnCookie = `${options.secure ? '__Host-' : ''}qrm_${provider}_next`;
  const returnCookieOptions = {
    signed: true,
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: options.secure,
    path: options.secure ? '/' : `${base}${start}`,
  };

  app.get(
    start,
    {
      config: { access: 'public' },
      schema: { hide: true, querystring: StartQuery },
      onRequest: options.limits.signInStart,
    },
    async (request, reply) => {
      const next = returnPathIn(base, request.query.next);
      // Signed in already: nothing to do (and a cross-site link cannot sign anyone out through here).
      if (request.session?.accountId !== undefined) return reply.redirect(next ?? `${base}/`, 303);
      if (next !== undefined)
        reply.setCookie(returnCookie, next, { ...returnCookieOptions, maxAge: RETURN_COOKIE_SECONDS });
      else reply.clearCookie(returnCookie, returnCookieOptions);
      const started = await beginProviderSignIn(deps, provider, request.sessionToken);
      request.oidcState = started.state;
      const authorization = new URL(await client.generateAuthorizationUri(request, reply));
      authorization.searchParams.set('nonce', started.nonce);
      reply.setSessionCookie(started.session);
      return reply.redirect(authorization.href, 303);
    },
  );

  app.get(
    `${start}/callback`,
    {
      config: { access: 'public' },
      schema: { hide: true, querystring: CallbackQuery },
      onRequest: options.limits.signInCallback,
    },
    async (request, reply) => {
      // Claimed (and so used up) before anything else, whatever the provider answered.
      const pending = await claimPendingSignIn(deps, request.sessionToken, provider, request.query.state);
      if (request.query.error !== undefined) {
        throw new ApiError('unauthorized', `${label} did not sign you in (${request.query.error}); you can try again`);
      }
      if (request.query.code === undefined)
        throw new ApiError('invalid_request', `${label} returned no authorization code; please sign in again`);
      request.oidcState = pending.state;
      let idToken: string | undefined;
      try {
        // Sends the PKCE verifier with the code, and clears the plugin's cookies.
        idToken = (await client.getAccessTokenFromAuthorizationCodeFlow(request, reply)).token.id_token;
      } catch (error) {
        // The reason only: the failed request's options hold the client secret and the PKCE verifier.
        request.log.warn({ provider, reason: reasonOf(error) }, 'authorization code exchange failed');
        throw new ApiError('unauthorized', `${label} did not accept the sign-in; please sign in again`);
      }
      let signedIn;
      try {
        signedIn = await completeProviderSignIn({ ...deps, verifier }, idToken, pending);
      } catch (error) {
        // The browser hears only "could not be verified"; the operator's log says which check failed.
        if (error instanceof ApiError && error.code === 'unauthorized')
          request.log.warn({ provider, reason: reasonOf(error.cause) }, 'id_token refused');
        throw error;
      }
      reply.setSessionCookie(signedIn.session);
      const kept = request.cookies[returnCookie];
      const unsigned = kept === undefined ? undefined : request.unsignCookie(kept);
      reply.clearCookie(returnCookie, returnCookieOptions);
      const next = unsigned?.valid ? returnPathIn(base, unsigned.value ?? undefined) : undefined;
      return reply.redirect(next ?? `${base}/`, 303);
    },
  );
};
