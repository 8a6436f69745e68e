// Requests no route answers: 405 method_not_allowed with `Allow` when the path is known under other methods, else 404.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import Router, { type HTTPMethod } from 'find-my-way';
import { ApiError } from '../../domain/errors.js';
import { sendProblem } from './problem-details.js';

/**
 * Every route's path under each of its methods, matched as the app's own router matches them. The router is built on
 * the first question, not route by route at start: most processes never meet a request no route answers.
 */
export class RouteMethods {
  readonly #routes: Array<{ methods: readonly string[]; url: string }> = [];
  #matcher: { router: Router.Instance<Router.HTTPVersion.V1>; methods: HTTPMethod[] } | undefined;

  add(methods: readonly string[], url: string): void {
    this.#routes.push({ methods, url });
    this.#matcher = undefined;
  }

  /** The methods a route answers `path` with, sorted; empty for a path no route knows. */
  allowedAt(path: string): string[] {
    const { router, methods } = (this.#matcher ??= this.#match());
    return methods.filter((method) => router.find(method, path) !== null).sort();
  }

  #match(): { router: Router.Instance<Router.HTTPVersion.V1>; methods: HTTPMethod[] } {
    const router = Router({ ignoreTrailingSlash: false });
    const methods = new Set<HTTPMethod>();
    for (const route of this.#routes) {
      for (const method of route.methods) {
        const known = method.toUpperCase() as HTTPMethod;
        if (router.hasRoute(known, route.url)) continue;
        router.on(known, route.url, () => undefined);
        methods.add(known);
      }
    }
    return { router, methods: [...methods] };
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    routeMethods: RouteMethods;
  }
}

/**
 * A request no route answers whose path a route knows under other methods: the 405 to give, with the methods for
 * `Allow`; undefined for an unknown path. A route that handed the request on as not found (callNotFound) knows its own
 * method: that stays a 404.
 */
export function wrongMethod(request: FastifyRequest): { allowed: string[]; error: ApiError } | undefined {
  const path = request.url.split('?')[0]!;
  const allowed = request.server.routeMethods.allowedAt(path);
  if (allowed.length === 0 || allowed.includes(request.method)) return undefined;
  const detail = `${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`;
  return { allowed, error: new ApiError('method_not_allowed', detail) };
}

/** The not-found answer every context can give: 405 naming `Allow` when another method has a route there. */
export function sendUnknownRoute(request: FastifyRequest, reply: FastifyReply, notFound: ApiError): FastifyReply {
  const wrong = wrongMethod(request);
  if (!wrong) return sendProblem(reply, request, notFound);
  reply.header('Allow', wrong.allowed.join(', '));
  return sendProblem(reply, request, wrong.error);
}

async function unknownRoute(app: FastifyInstance): Promise<void> {
  const methods = new RouteMethods();
  app.decorate('routeMethods', methods);
  app.addHook('onRoute', (route) =>
    methods.add(Array.isArray(route.method) ? route.method : [route.method], route.url),
  );
  app.setNotFoundHandler((request, reply) =>
    sendUnknownRoute(
      request,
      reply,
      new ApiError('not_found', `no route for ${request.method} ${request.url.split('?')[0]}`),
    ),
  );
}

/** Registered before any route, so that its onRoute hook sees them all. */
export default fp(unknownRoute, { name: 'unknown-route', dependencies: ['problem-details'] });
