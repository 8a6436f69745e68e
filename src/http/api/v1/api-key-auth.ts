// API-key context: resolves X-API-Key and checks the route's scope before the body is parsed; notes each key's use.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Actor } from '../../../domain/actor.js';
import { requireScope } from '../../../domain/key-scope.js';
import type { Credential } from '../../../domain/ports/key-store.js';
import type { LastUsedLog } from '../../../domain/ports/last-used-log.js';
import { authenticate, type AuthenticateDeps } from '../../../services/authenticate.js';
import { routeScope } from './route-scope.js';

declare module 'fastify' {
  interface FastifyRequest {
    credential: Credential | undefined;
  }
}

export interface ApiKeyAuthOptions extends AuthenticateDeps {
  /** Where each answered request notes its key's use (the last-used flush job writes it to the key). */
  lastUsed: Pick<LastUsedLog, 'record'>;
}

/** The API key acting on a request, as the audit log names it: its id and its hint, never the secret. */
export function keyActorOf(request: FastifyRequest): Actor {
  const credential = callerOf(request);
  return { type: 'api_key', id: credential.keyId, label: credential.hint };
}

/** The caller of a request in the API context: the hook below refused every request without one. */
export function callerOf(request: FastifyRequest): Credential {
  if (!request.credential) throw new Error('callerOf: the request did not pass the API-key hook');
  return request.credential;
}

async function apiKeyAuth(app: FastifyInstance, options: ApiKeyAuthOptions): Promise<void> {
  app.decorateRequest('credential', undefined);
  // A route that names no scope would be open to every key: refused when it is added, so the app does not start.
  app.addHook('onRoute', (route) => {
    if (!routeScope(route.schema))
      throw new Error(
        `${route.method} ${route.url}: an API route must name its key scope (schema.security: keyWithScope(…))`,
      );
  });
  app.addHook('onRequest', async (request) => {
    const header = request.headers['x-api-key'];
    const credential = await authenticate(options, Array.isArray(header) ? header[0] : header);
    requireScope(credential.scopes, routeScope(request.routeOptions.schema)!);
    request.credential = credential;
  });
  // Here, not in each route: a key counts as used when a request made with it succeeds, whichever route answered.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.credential && reply.statusCode < 400)
      options.lastUsed.record(request.credential.keyId, options.clock());
    done(null, payload);
  });
}

export default fp(apiKeyAuth, { name: 'api-key-auth' });
