// The OpenAPI document and the interactive reference, built from the routes the API registered: a second Fastify app
// that holds the same routes (schemas only, never serving them), with Swagger and its UI registered on it.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { finishDocument } from './document.js';

export interface ApiDocuments {
  document: Record<string, unknown>;
  /** Answers /docs and its files; the caller closes it. */
  reference: FastifyInstance;
}

/** Nothing is validated or serialised here: the copy's routes only describe the API's. */
const describeOnly = () => () => true;

export async function documentBuilder(version: string, routes: readonly RouteOptions[]): Promise<ApiDocuments> {
  const reference = Fastify();
  reference.setValidatorCompiler(describeOnly);
  reference.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await reference.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'QR Manager API',
        version,
        description:
          'Generate QR codes: POST the content, its type and an output format with your API key, get the image ' +
          'back in the response body. ' +
          'Every error is application/problem+json with a stable `code`.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      components: {
        securitySchemes: {
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description: 'Create keys in the developer portal or with `qrm keys create`.',
          },
        },
      },
      tags: [
        { name: 'generation', description: 'QR code images' },
        { name: 'operations', description: 'Health, readiness and metrics' },
      ],
    },
    transform: jsonSchemaTransform,
    transformObject: finishDocument,
  });
  await reference.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true }, staticCSP: true });
  for (const route of routes) {
    const { method, url, schema, config, constraints } = route;
    reference.route({ method, url, schema, config, constraints, exposeHeadRoute: false, handler: () => undefined });
  }
  await reference.ready();
  return { document: reference.swagger() as unknown as Record<string, unknown>, reference };
}
