// API reference: the OpenAPI 3.1 document at /openapi.json and an interactive reference at /docs, both from the route
// schemas, built on the first request that asks for them (Swagger and its UI cost start-up time every server pays).
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { ApiDocuments } from '../openapi/document-app.js';

export interface ApiDocsOptions {
  version: string;
  publicUrl: string | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The OpenAPI document of every route, built on first call (without `servers`: that depends on the caller). */
    apiDocument(): Promise<Record<string, unknown>>;
  }
}

/** Headers the reference's own answer carries that this reply sets for itself. */
const HOP_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date']);

async function apiDocs(app: FastifyInstance, options: ApiDocsOptions): Promise<void> {
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (route) => {
    // Hidden routes are not documented, and this plugin's own would collide with the reference's.
    if (!route.schema?.hide) routes.push(route);
  });
  let documents: Promise<ApiDocuments> | undefined;
  const built = (): Promise<ApiDocuments> => {
    documents ??= import('../openapi/document-app.js')
      .then(({ documentBuilder }) => documentBuilder(options.version, routes))
      .catch((error: unknown) => {
        documents = undefined; // the next request tries again
        throw error;
      });
    return documents;
  };
  app.addHook('onClose', async () => {
    await documents?.then(({ reference }) => reference.close()).catch(() => undefined);
  });
  app.decorate('apiDocument', async () => (await built()).document);

  // `servers` names where this document is read from: PUBLIC_URL, or else the address the request reached.
  app.get('/openapi.json', { schema: { hide: true } }, async (request) => {
    const url = options.publicUrl ?? `${request.protocol}://${request.host}`;
    return { ...(await app.apiDocument()), servers: [{ url }] };
  });

  /** The interactive reference answers from its own app, which holds the document's routes and the UI's files. */
  const reference = async (request: FastifyRequest, reply: FastifyReply) => {
    const { reference: docsApp } = await built();
    const answer = await docsApp.inject({
      method: 'GET',
      url: request.url,
      headers: { ...request.headers, host: 'localhost' },
    });
    if (answer.statusCode === 404) return reply.callNotFound();
    if (answer.statusCode >= 400) {
      throw Object.assign(new Error(answer.statusMessage), { statusCode: answer.statusCode });
    }
    for (const [name, value] of Object.entries(answer.headers)) {
      if (!HOP_HEADERS.has(name) && value !== undefined) reply.header(name, value);
    }
    return reply.code(answer.statusCode).send(answer.rawPayload);
  };
  app.get('/docs', { schema: { hide: true } }, reference);
  app.get('/docs/*', { schema: { hide: true } }, reference);
}

export default fp(apiDocs, { name: 'api-docs' });
