// Graceful shutdown at the HTTP edge: drain (still serving, connections closed after each answer), then refuse with
// 503.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../../domain/errors.js';

export type LifecyclePhase = 'serving' | 'draining' | 'closing';

/** Shared by the shutdown guard, /readyz and the api entry. */
export class Lifecycle {
  phase: LifecyclePhase = 'serving';
}

declare module 'fastify' {
  interface FastifyInstance {
    lifecycle: Lifecycle;
  }
}

async function shutdownGuard(app: FastifyInstance, options: { lifecycle: Lifecycle }): Promise<void> {
  const { lifecycle } = options;
  app.decorate('lifecycle', lifecycle);
  app.addHook('preClose', async () => {
    lifecycle.phase = 'closing';
  });
  app.addHook('onRequest', (_request, _reply, done) => {
    if (lifecycle.phase !== 'closing') return done();
    // Fastify's own 503 on closing is not problem+json; this one is, and tells the client to reconnect elsewhere.
    done(
      new ApiError('unavailable', 'the server is shutting down; retry, another instance will answer', {
        retryAfterSeconds: 1,
      }),
    );
  });
  // Once shutdown starts, no connection is kept alive: otherwise server.close() waits for clients to hang up.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (lifecycle.phase !== 'serving') reply.header('Connection', 'close');
    done(null, payload);
  });
}

export default fp(shutdownGuard, { name: 'shutdown-guard' });
