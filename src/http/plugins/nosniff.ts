// X-Content-Type-Options: nosniff on every answer, so no browser ever reads an image or a problem document as something
// else.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

async function nosniff(app: FastifyInstance): Promise<void> {
  // onSend, not onRequest: it also reaches answers made by error handlers and the 404 handler.
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('X-Content-Type-Options', 'nosniff');
    done(null, payload);
  });
}

export default fp(nosniff, { name: 'nosniff' });
