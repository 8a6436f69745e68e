// One log line per request: id, route, account, type, format, status and duration — never secrets.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

async function requestLog(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<
      string,
      unknown
    >;
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 100) / 100,
        accountId: request.credential?.accountId,
        type: typeof body.type === 'string' ? body.type.slice(0, 16) : undefined,
        format: typeof body.outputFormat === 'string' ? body.outputFormat.slice(0, 8) : undefined,
      },
      'request completed',
    );
    done();
  });
}

export default fp(requestLog, { name: 'request-log' });
