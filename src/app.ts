// buildApp: the whole HTTP service as a Fastify instance that is not listening: plugins and routes on what the API's
// composition root builds.
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { createApiServices, type ApiOverrides } from './composition/api.js';
import type { Config } from './config.js';
import apiKeyAuth, { keyActorOf } from './http/api/v1/api-key-auth.js';
import { codesRoute } from './http/api/v1/codes.route.js';
import { accountStatsRoute } from './http/api/v1/account-stats.route.js';
import { batchesRoute } from './http/api/v1/batches.route.js';
import { generateRoute } from './http/api/v1/generate.route.js';
import { decodeRoute } from './http/api/v1/decode.route.js';
import { logosRoute } from './http/api/v1/logos.route.js';
import { webhooksRoute } from './http/api/v1/webhooks.route.js';
import { signingKeysRoute } from './http/api/v1/signing-keys.route.js';
import { membersRoute } from './http/api/v1/members.route.js';
import { designsRoute } from './http/api/v1/designs.route.js';
import { domainsRoute } from './http/api/v1/domains.route.js';
import { keysRoute } from './http/api/v1/keys.route.js';
import { auditLogRoute } from './http/api/v1/audit-log.route.js';
import { settingsRoute } from './http/api/v1/settings.route.js';
import auditTrail from './http/plugins/audit-trail.js';
import { ServiceHosts } from './http/service-hosts.js';
import hostPolicy from './http/plugins/host-policy.js';
import { signedImageRoute } from './http/signed/signed-image.route.js';
import apiDocs from './http/plugins/api-docs.js';
import bodyGuard from './http/plugins/body-guard.js';
import health from './http/plugins/health.js';
import metrics from './http/plugins/metrics.js';
import nosniff from './http/plugins/nosniff.js';
import overloadGuard from './http/plugins/overload-guard.js';
import problemDetails, { routerErrorProblem } from './http/plugins/problem-details.js';
import strictQuery from './http/plugins/strict-query.js';
import unknownRoute from './http/plugins/unknown-route.js';
import requestLog from './http/plugins/request-log.js';
import requestsInFlight from './http/plugins/requests-in-flight.js';
import shutdownGuard, { Lifecycle } from './http/plugins/shutdown-guard.js';
import portal from './http/portal/portal.js';
import { redirectRoute } from './http/redirect/redirect.route.js';
import { stripeWebhookRoute } from './http/webhooks/stripe-webhook.route.js';
import { UploadSlots } from './http/upload-slots.js';

export interface BuildAppOptions {
  /** Adapters a test puts in place of what config would build (the app closes them with its own). */
  overrides?: ApiOverrides;
  clock?: () => Date;
  /** Where log lines go (tests capture them); defaults to stdout. */
  logStream?: NodeJS.WritableStream;
  lastUsedFlushMs?: number;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * TRUST_PROXY as a hop count: the nearest `hops` proxies may name the client (Fastify's types lack the number form).
 */
function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

export async function buildApp(config: Config, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: {
        paths: [
          'req.headers["x-api-key"]',
          'req.headers.cookie',
          'req.headers.authorization',
          'res.headers["set-cookie"]',
        ],
        censor: '[redacted]',
      },
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
    // request-log writes one line per request instead of two
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    // Node's backstops for a request that never finishes arriving, and a socket that goes quiet; body-guard cuts slow
    // bodies first.
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.connectionTimeoutMs,
    // Only named proxies may say who the client is (request.ip keys the portal's per-address limits).
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : (config.trustProxy ?? false),
    // A caller's X-Request-Id is kept when it is safe to echo; otherwise we make one.
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    return503OnClosing: false, // shutdown-guard answers those requests with problem+json instead
    frameworkErrors: routerErrorProblem,
    forceCloseConnections: 'idle',
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const services = await createApiServices(config, app.log, {
    overrides: options.overrides,
    clock: options.clock ?? (() => new Date()),
    lastUsedFlushMs: options.lastUsedFlushMs,
  });
  const { adapters, clock, lastUsed, logos } = services;
  const plans = adapters.plans;
  app.addHook('onReady', () => services.start());
  app.addHook('onClose', () => services.close());

  await app.register(nosniff);
  await app.register(problemDetails);
  await app.register(unknownRoute);
  await app.register(requestLog);
  const hosts = new ServiceHosts(config.publicUrl, config.allowedHosts);
  await app.register(hostPolicy, { hosts });
  const uploads = new UploadSlots();
  await app.register(bodyGuard, {
    slots: uploads,
    uploadsPerCaller: config.uploadsPerCaller,
    uploadsPerAddress: config.uploadsPerAddress,
    pace: { minBytesPerSecond: config.bodyMinBytesPerSecond, windowMs: config.bodyRateWindowMs },
    callerOf: (request) =>
      request.credential
        ? `key:${request.credential.keyId}`
        : request.session
          ? `session:${request.session.id}`
          : undefined,
  });
  const lifecycle = new Lifecycle();
  await app.register(shutdownGuard, { lifecycle });
  await app.register(apiDocs, { version: '1.0.0', publicUrl: config.publicUrl });
  await app.register(metrics, {
    renderStats: () => adapters.renderer.stats(),
    decodeStats: () => services.decoder.stats(),
    unrecordedScans: () => adapters.scans.unrecorded(),
    uploadsInFlight: () => uploads.held(),
    token: config.metricsToken,
  });
  await app.register(health, { probes: adapters.probes, draining: () => lifecycle.phase !== 'serving' });
  await app.register(overloadGuard, {
    maxEventLoopDelayMs: config.maxEventLoopDelayMs,
    maxHeapUsedBytes: config.maxHeapUsedBytes,
  });

  const renderer = adapters.renderer;
  renderer.listen({
    rendered: (format, seconds, outcome) => app.metrics.renderDuration.observe({ format, outcome }, seconds),
    cache: (result) => app.metrics.cacheRequests.inc({ cache: 'image', result }),
  });
  app.addHook('onClose', async () => renderer.listen(undefined));

  app.decorate('auditedRoutes', []); // every state-changing route of the API and the portal, with what it appends
  // The API context: API-key auth and JSON-only bodies apply here and nowhere else.
  await app.register(
    async (api) => {
      api.removeContentTypeParser('text/plain');
      await api.register(strictQuery);
      await api.register(requestsInFlight, { counter: services.requestsInFlight });
      await api.register(apiKeyAuth, { keys: adapters.keys, keyPepper: config.keyPepper, lastUsed, clock });
      await api.register(auditTrail, {
        deps: { auditLog: adapters.auditLog, accounts: adapters.accounts, plans, clock },
        actorOf: keyActorOf,
      });
      await api.register(generateRoute, {
        plans,
        meter: adapters.meter,
        renderer,
        clock,
        logos,
        designs: adapters.designs,
      });
      await api.register(codesRoute, {
        ...adapters,
        renderer,
        clock,
        publicUrl: config.publicUrl,
        uniqueCounting: services.uniqueCounting,
      });
      await api.register(accountStatsRoute, { ...adapters, clock, uniqueCounting: services.uniqueCounting });
      if (adapters.batches && adapters.batchResults && services.batchQueue) {
        await api.register(batchesRoute, {
          batches: adapters.batches,
          results: adapters.batchResults,
          meter: adapters.meter,
          renderer,
          logos,
          queue: services.batchQueue,
          designs: adapters.designs,
          codes: adapters.codes,
          publicUrl: config.publicUrl,
          plans,
          clock,
          bodyLimit: config.batchBodyLimitBytes,
        });
      }
      await api.register(logosRoute, { logos, meter: adapters.meter, normaliser: services.normaliser, plans, clock });
      await api.register(decodeRoute, { decoder: services.decoder, meter: adapters.meter, plans, clock });
      await api.register(webhooksRoute, { scanWebhooks: adapters.scanWebhooks, secrets: adapters.batches, clock });
      await api.register(designsRoute, { designs: adapters.designs, plans, renderer, logos, clock });
      await api.register(domainsRoute, {
        domains: adapters.domains,
        codes: adapters.codes,
        plans,
        clock,
        ownHostnames: hosts.names,
        probe: services.domainProbe,
        dns: services.domainDns,
      });
      await api.register(signingKeysRoute, {
        signingKeys: adapters.signingKeys,
        signingSeal: adapters.signingSeal,
        clock,
      });
      await api.register(keysRoute, {
        accounts: adapters.accounts,
        keys: adapters.keys,
        keyPepper: config.keyPepper,
        clock,
      });
      await api.register(auditLogRoute, { auditLog: adapters.auditLog });
      await api.register(settingsRoute, { accounts: adapters.accounts });
      await api.register(membersRoute, {
        accounts: adapters.accounts,
        members: adapters.members,
        keys: adapters.keys,
        keyPepper: config.keyPepper,
        clock,
        publicUrl: config.publicUrl,
      });
    },
    { prefix: '/api/v1' },
  );

  // Signed image URLs: no key (the signature is the credential), metered as the signing key's account.
  await app.register(signedImageRoute, {
    designs: adapters.designs,
    plans,
    meter: adapters.meter,
    renderer,
    clock,
    logos,
    signingKeys: adapters.signingKeys,
    signingSeal: adapters.signingSeal,
  });

  // What a scanned dynamic code opens: no key, no session, never metered.
  await app.register(redirectRoute, {
    codes: adapters.codes,
    domains: adapters.domains,
    hosts,
    scans: adapters.scans,
    scanPrivacy: adapters.scanPrivacy,
    scanAllowance: adapters.scanAllowance,
    guesses: adapters.guesses,
    geo: adapters.geo,
    clock,
    splitKey: adapters.signingSeal.derivedKey('split-arm/v1'),
  });

  // Stripe's signed events, only with Stripe configured: without it the route does not exist and plans change only by
  // qrm.
  if (adapters.billing)
    await app.register(stripeWebhookRoute, {
      accounts: adapters.accounts,
      billing: adapters.billing,
      plans,
      clock,
      auditLog: adapters.auditLog,
    });

  // The developer portal at /portal: a sibling context with its own cookies, session, CSRF and headers.
  app.decorate('portalRoutes', []); // filled as the portal's routes are added, each with its declared access
  await app.register(portal, {
    config,
    adapters: { ...adapters, renderer, logos },
    normaliser: services.normaliser,
    decoder: services.decoder,
    clock,
    plans,
    batchQueue: services.batchQueue,
    uniqueCounting: services.uniqueCounting,
    domainProbe: services.domainProbe,
    domainDns: services.domainDns,
    ownHostnames: hosts.names,
  });

  return app;
}
