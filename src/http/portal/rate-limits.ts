// Per-address rate limits on portal sign-in and key creation (@fastify/rate-limit): in Redis when configured, so every
// instance shares them.
import { isIP } from 'node:net';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SharedRateLimitStore } from '../../adapters/contract.js';
import { ApiError } from '../../domain/errors.js';

export interface PortalRateLimitsOptions {
  /** Sign-in starts a minute per address (OIDC callbacks get the same number, counted apart); 0: no limit. */
  signInPerMinute: number;
  /** Key creations an hour per address, the form and the JSON API together; 0: no limit. */
  keyCreationsPerHour: number;
  /** Playground live previews a day per portal session (they are not metered against the plan); 0: no limit. */
  previewsPerDay?: number | undefined;
  /** Production mode's Redis: the counters live there, shared by every instance. Otherwise in this process. */
  store?: SharedRateLimitStore | undefined;
}

/**
 * Hooks that count the request against its client address and refuse past the limit with 429
 * rate_limited. Key creation and local sign-in run them last among their preHandlers, after the
 * session and CSRF checks: a request refused for who it is (401, 403) spends no one's budget, so
 * anonymous requests from a shared address (NAT, one IPv6 /64) cannot lock a signed-in user out.
 * OIDC starts and callbacks are anonymous by nature and run them as onRequest hooks.
 */
export interface PortalRateLimits {
  signInStart: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  signInCallback: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  keyCreation: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** Per session, after the session and CSRF checks: previews are not metered against the plan, so counted here. */
  playgroundPreview: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/**
 * The bucket of a client address: IPv4 as it is, IPv6 by its /64 (one subscriber's network hands out
 * any number of addresses from it, so counting single IPv6 addresses would limit nothing).
 */
export function addressBucket(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  const [head = '', tail] = ip.split('::');
  const front = head === '' ? [] : head.split(':');
  const back = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined
      ? front
      : [...front, ...Array<string>(Math.max(0, 8 - front.length - back.length)).fill('0'), ...back];
  return `${groups
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}

/**
 * Registers @fastify/rate-limit on the portal context (no route is limited by default) and returns one hook per limit.
 */
export async function portalRateLimits(
  app: FastifyInstance,
  options: PortalRateLimitsOptions,
): Promise<PortalRateLimits> {
  await app.register(rateLimit, {
    global: false,
    ...(options.store ? { redis: options.store.redis, nameSpace: options.store.nameSpace } : {}),
    // Fail open while Redis is down: the session store is down with it, so these routes answer 503 anyway.
    skipOnError: true,
    // The refusal is our problem document, which sets Retry-After itself; no X-RateLimit-* here (on the API they mean
    // the monthly quota).
    addHeaders: {
      'x-ratelimit-limit': false,
      'x-ratelimit-remaining': false,
      'x-ratelimit-reset': false,
      'retry-after': false,
    },
    addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
  });

  const limit = (name: string, max: number, timeWindow: number, what: string) => {
    if (max <= 0) return async () => {};
    // Each limit is one bucket per address, shared by every route it guards: the name keeps the buckets apart
    // (the plugin's shared limiters all live in one namespace).
    const hook = app.rateLimit({
      max,
      timeWindow,
      keyGenerator: (request) => `${name}|${addressBucket(request.ip)}`,
      errorResponseBuilder: (_request, context) =>
        new ApiError('rate_limited', `too many ${what} from your address; try again in ${context.after}`, {
          retryAfterSeconds: Math.max(1, Math.ceil(context.ttl / 1000)),
        }),
    });
    return async (request: FastifyRequest, reply: FastifyReply) => {
      await hook.call(app, request, reply);
    };
  };

  return {
    signInStart: limit('signin', options.signInPerMinute, MINUTE_MS, 'sign-in attempts'),
    signInCallback: limit('signin-callback', options.signInPerMinute, MINUTE_MS, 'sign-in attempts'),
    keyCreation: limit('key-creation', options.keyCreationsPerHour, HOUR_MS, 'API keys created'),
    playgroundPreview: previewLimit(app, options.previewsPerDay ?? 0),
  };
}

/** The day's live previews of one portal session (keyed by the session's stored id, a digest of its cookie). */
function previewLimit(app: FastifyInstance, max: number): PortalRateLimits['playgroundPreview'] {
  if (max <= 0) return async () => {};
  const hook = app.rateLimit({
    max,
    timeWindow: DAY_MS,
    keyGenerator: (request) => `preview|${request.session?.id ?? addressBucket(request.ip)}`,
    errorResponseBuilder: (_request, context) =>
      new ApiError(
        'preview_limit_reached',
        `this session has drawn its ${max} live previews for the day; they come back in ${context.after}. ` +
          `Generate still works`,
        {
          retryAfterSeconds: Math.max(1, Math.ceil(context.ttl / 1000)),
          extensions: { limit: max },
        },
      ),
  });
  return async (request: FastifyRequest, reply: FastifyReply) => {
    await hook.call(app, request, reply);
  };
}
