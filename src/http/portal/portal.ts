// The developer portal: a sibling context of the API, mounted at /portal, with its own cookies, session, CSRF and
// headers.
import { randomBytes } from 'node:crypto';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import type { Adapters } from '../../adapters/contract.js';
import type { Config } from '../../config.js';
import type { PlanCatalogue } from '../../domain/plan-catalogue.js';
import type { BatchQueue } from '../../domain/ports/batch-queue.js';
import type { LogoNormaliser } from '../../domain/ports/logo-normaliser.js';
import type { QrDecoder } from '../../domain/ports/qr-decoder.js';
import type { OidcProvider } from '../../domain/ports/session-store.js';
import type { UniqueCounting } from '../../services/scan-stats.js';
import { accessGuard, requireDeclaredAccess } from './account-guard.js';
import auditTrail from '../plugins/audit-trail.js';
import { portalActor } from './routes/keys.routes.js';
import csrf from './csrf.plugin.js';
import errorPages from './error-pages.plugin.js';
import { assetsRoutes } from './routes/assets.routes.js';
import { auditLogRoutes } from './routes/audit-log.routes.js';
import { codesRoutes } from './routes/codes.routes.js';
import { batchesRoutes } from './routes/batches.routes.js';
import { billingRoutes } from './routes/billing.routes.js';
import { dashboardRoutes } from './routes/dashboard.routes.js';
import { docsRoutes } from './routes/docs.routes.js';
import { keysApiRoutes } from './routes/keys-api.routes.js';
import { keysRoutes } from './routes/keys.routes.js';
import { logosRoutes } from './routes/logos.routes.js';
import { membersRoutes } from './routes/members.routes.js';
import { settingsRoutes } from './routes/settings.routes.js';
import { signingRoutes } from './routes/signing.routes.js';
import { domainsRoutes } from './routes/domains.routes.js';
import type { DomainProbe } from '../../domain/ports/domain-probe.js';
import type { TxtLookup } from '../../domain/ports/txt-lookup.js';
import type { ProviderStatus } from './providers.js';
import { playgroundRoutes } from './routes/playground.routes.js';
import { plansRoutes } from './routes/plans.routes.js';
import { qrsRoutes } from './routes/qrs.routes.js';
import { refuseForeignHostWrites } from './loopback.js';
import { portalRateLimits } from './rate-limits.js';
import { signInRoutes } from './routes/signin.routes.js';
import securityHeaders from './security-headers.plugin.js';
import session from './session.plugin.js';
import views from './views.plugin.js';
import { refuseUnownedWrites } from './write-owner.js';

export const PORTAL_PREFIX = '/portal';

export interface PortalOptions {
  config: Pick<
    Config,
    | 'google'
    | 'microsoft'
    | 'publicUrl'
    | 'sessionSecret'
    | 'keyPepper'
    | 'portalSignInPerMinute'
    | 'portalKeyCreationsPerHour'
    | 'portalPreviewsPerDay'
    | 'batchBodyLimitBytes'
  >;
  adapters: Pick<
    Adapters,
    | 'accounts'
    | 'members'
    | 'keys'
    | 'auditLog'
    | 'meter'
    | 'renderer'
    | 'sessions'
    | 'rateLimitStore'
    | 'signIn'
    | 'batches'
    | 'batchResults'
    | 'codes'
    | 'scanLedger'
    | 'scanCounters'
    | 'logos'
    | 'signingKeys'
    | 'designs'
    | 'domains'
    | 'signingSeal'
    | 'billing'
  >;
  /** Turns logo uploads into the PNG that is stored (the API's own). */
  normaliser: LogoNormaliser;
  /** Reads codes back in the playground (the API's own decoder). */
  decoder: QrDecoder;
  /** Where portal uploads go to be rendered; absent: no Batches page. */
  batchQueue?: BatchQueue | undefined;
  /** How the scan statistics count unique scanners (exact in the embedded default, HyperLogLog with Redis). */
  uniqueCounting: UniqueCounting;
  /** The custom-domain check, for the Domains page's "Check now". */
  domainProbe: DomainProbe;
  domainDns: TxtLookup;
  /** This service's own hostnames: never registrable as a custom domain. */
  ownHostnames: readonly string[];
  clock: () => Date;
  plans: PlanCatalogue;
}

/** Everything under the prefix: registered inside its own encapsulated context, so nothing here reaches the API. */
async function portalContext(app: FastifyInstance, options: PortalOptions): Promise<void> {
  const { config, adapters, clock } = options;
  const base = app.prefix;
  const secure = config.publicUrl?.startsWith('https://') ?? false;
  const configured = (['google', 'microsoft'] as const).filter((provider) => adapters.signIn[provider] !== undefined);
  const deps = { ...adapters, clock, keyPepper: config.keyPepper, plans: options.plans };

  // The secret signs only @fastify/oauth2's PKCE cookie (SESSION_SECRET is required with a provider);
  // session cookies are unguessable ids checked against the store, so they need no signature.
  await app.register(cookie, { secret: config.sessionSecret ?? randomBytes(32).toString('base64url') });
  // Bodies are urlencoded forms or JSON; text/plain (what a cross-site form can send as "JSON") is refused.
  app.removeContentTypeParser('text/plain');
  await app.register(formbody);
  await app.register(securityHeaders, { secure, formRedirectOrigins: adapters.billing?.pageOrigins ?? [] });
  await app.register(views, { base });
  await app.register(errorPages, { base });
  await app.register(session, { sessions: adapters.sessions, clock, secure });
  await app.register(csrf);
  app.addHook('onRequest', refuseUnownedWrites(app));
  // Signing in locally, every session belongs to a browser on this machine: writes under another host name are refused.
  if (configured.length === 0) app.addHook('onRequest', refuseForeignHostWrites);
  // Per client address: sign-in starts and callbacks, and key creation (counted after the session and CSRF checks).
  const limits = await portalRateLimits(app, {
    signInPerMinute: config.portalSignInPerMinute,
    keyCreationsPerHour: config.portalKeyCreationsPerHour,
    previewsPerDay: config.portalPreviewsPerDay,
    store: adapters.rateLimitStore,
  });

  // Every route declares its access; one hook resolves the account in use and the member, and checks the role.
  app.decorateRequest('account', undefined);
  app.decorateRequest('member', undefined);
  app.decorateRequest('signedInAs', undefined);
  app.addHook('onRoute', requireDeclaredAccess(app.portalRoutes));
  app.addHook('onRequest', accessGuard({ accounts: adapters.accounts, members: adapters.members, base }));
  // Every state-changing route below says what it appends to the audit log; the signed-in member is the actor.
  await app.register(auditTrail, {
    deps: { auditLog: adapters.auditLog, accounts: adapters.accounts, plans: options.plans, clock },
    actorOf: portalActor,
  });
  await app.register(assetsRoutes);
  await app.register(docsRoutes, { base });
  const providers: ProviderStatus = new Map<OidcProvider, 'ready' | 'unavailable'>();
  // Loaded only with a provider configured: @fastify/oauth2 and its dependencies cost every start otherwise.
  const oidc = configured.length > 0 ? await import('./routes/oidc.routes.js') : undefined;
  for (const provider of oidc ? configured : []) {
    const signIn = adapters.signIn[provider]!;
    providers.set(provider, signIn.status);
    await app.register(oidc!.oidcRoutes, {
      provider,
      client: config[provider]!,
      publicUrl: config.publicUrl!,
      base,
      secure,
      deps,
      signIn,
      limits,
    });
  }
  // Local sign-in exists only while no provider is configured; configuring one removes its route entirely.
  await app.register(signInRoutes, { base, deps, providers, localSignInEnabled: configured.length === 0, limits });
  await app.register(dashboardRoutes, { base, ...deps, uniqueCounting: options.uniqueCounting });
  await app.register(keysRoutes, { base, deps, limits });
  await app.register(keysApiRoutes, { base, deps, limits });
  await app.register(qrsRoutes, { base, ...deps });
  await app.register(logosRoutes, { base, ...deps, normaliser: options.normaliser });
  await app.register(signingRoutes, { base, ...deps });
  await app.register(domainsRoutes, {
    base,
    ...deps,
    ownHostnames: options.ownHostnames,
    probe: options.domainProbe,
    dns: options.domainDns,
  });
  await app.register(codesRoutes, {
    base,
    ...deps,
    publicUrl: config.publicUrl,
    uniqueCounting: options.uniqueCounting,
  });
  if (adapters.batches && adapters.batchResults && options.batchQueue) {
    await app.register(batchesRoutes, {
      base,
      accounts: adapters.accounts,
      batches: adapters.batches,
      batchResults: adapters.batchResults,
      meter: adapters.meter,
      renderer: adapters.renderer,
      logos: adapters.logos,
      queue: options.batchQueue,
      designs: adapters.designs,
      codes: adapters.codes,
      publicUrl: config.publicUrl,
      clock,
      plans: options.plans,
      bodyLimit: config.batchBodyLimitBytes,
    });
  }
  await app.register(playgroundRoutes, { base, ...deps, decoder: options.decoder, limits });
  await app.register(membersRoutes, { base, ...deps, publicUrl: config.publicUrl });
  await app.register(settingsRoutes, { base, ...deps });
  await app.register(auditLogRoutes, { base, auditLog: adapters.auditLog });
  await app.register(plansRoutes, { base, ...deps, selfServe: adapters.billing !== undefined });
  // Only with Stripe configured (loadConfig then requires PUBLIC_URL): without it these routes do not exist.
  if (adapters.billing && config.publicUrl) {
    await app.register(billingRoutes, {
      base,
      deps: { accounts: adapters.accounts, billing: adapters.billing, plans: options.plans, clock },
      publicUrl: config.publicUrl,
    });
  }
}

/** Registered once by buildApp: the portal at /portal, and the service's front door redirecting to it. */
export default async function portal(app: FastifyInstance, options: PortalOptions): Promise<void> {
  app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect(`${PORTAL_PREFIX}/`, 302));
  await app.register(portalContext, { ...options, prefix: PORTAL_PREFIX });
}
