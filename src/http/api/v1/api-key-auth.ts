// API-key context: resolves X-API-Key before the body is even parsed, so unauthenticated bodies cost nothing.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Credential } from '../../../domain/ports/key-store.js';
import { authenticate, type AuthenticateDeps } from '../../../services/authenticate.js';

declare module 'fastify' {
  interface FastifyRequest {
    credential: Credential | undefined;
  }
}

async function apiKeyAuth(app: FastifyInstance, deps: AuthenticateDeps): Promise<void> {
  app.decorateRequest('credential', undefined);
  app.addHook('onRequest', async (request) => {
    const header = request.headers['x-api-key'];
    request.credential = await authenticate(deps, Array.isArray(header) ? header[0] : header);
  });
}

export default fp(apiKeyAuth, { name: 'api-key-auth' });
