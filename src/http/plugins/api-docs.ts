// API reference: the OpenAPI 3.1 document at /openapi.json and an interactive reference at /docs, both from the route
// schemas.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { finishDocument } from '../openapi/document.js';

export interface ApiDocsOptions {
  version: string;
  publicUrl: string | undefined;
}

async function apiDocs(app: FastifyInstance, options: ApiDocsOptions): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'QR Manager API',
        version: options.version,
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
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true }, staticCSP: true });
  // `servers` names where this document is read from: PUBLIC_URL, or else the address the request reached.
  app.get('/openapi.json', { schema: { hide: true } }, async (request) => {
    const url = options.publicUrl ?? `${request.protocol}://${request.host}`;
    return { ...app.swagger(), servers: [{ url }] };
  });
}

export default fp(apiDocs, { name: 'api-docs' });
