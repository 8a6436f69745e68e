// Portal errors: friendly HTML pages for the browser, problem+json (through the app's handler) for the JSON API.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../../domain/errors.js';
import { sendUnknownRoute, wrongMethod } from '../plugins/unknown-route.js';
import { CSRF_REFUSED, isCsrfRefusal } from './csrf.plugin.js';
import { renderPage } from './page.js';

export interface ErrorPagesOptions {
  base: string;
}

async function errorPages(app: FastifyInstance, options: ErrorPagesOptions): Promise<void> {
  const isApiRequest = (request: FastifyRequest) => request.url.startsWith(`${options.base}/api/`);

  const showError = (request: FastifyRequest, reply: FastifyReply, error: ApiError) => {
    if (error.retryAfterSeconds !== undefined) reply.header('Retry-After', String(error.retryAfterSeconds));
    return renderPage(request, reply, 'error', { title: error.title, error, requestId: request.id }, error.status);
  };

  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const known = isCsrfRefusal(error) ? new ApiError('forbidden', CSRF_REFUSED) : error;
    // The JSON API, and anything we cannot describe, go to the app's handler: problem+json, logged there.
    if (isApiRequest(request)) throw known;
    if (known instanceof ApiError) return showError(request, reply, known);
    if (known.statusCode !== undefined && known.statusCode >= 400 && known.statusCode < 500) {
      return showError(
        request,
        reply,
        new ApiError('invalid_request', 'the form could not be read; go back and try again'),
      );
    }
    request.log.error({ err: error }, 'unhandled error');
    return showError(
      request,
      reply,
      new ApiError(
        'internal_error',
        `something went wrong on our side; quote request id ${request.id} when reporting it`,
      ),
    );
  });

  // A page's path with a wrong method is a 405 naming `Allow`, as on the API; a path no route knows is a 404.
  app.setNotFoundHandler(async (request, reply) => {
    const error = new ApiError('not_found', `there is no page at ${request.url.split('?')[0]}`);
    if (isApiRequest(request)) return sendUnknownRoute(request, reply, error);
    const wrong = wrongMethod(request);
    if (!wrong) return showError(request, reply, error);
    reply.header('Allow', wrong.allowed.join(', '));
    return showError(request, reply, wrong.error);
  });
}

export default fp(errorPages, { name: 'portal-error-pages', dependencies: ['portal-views'] });
