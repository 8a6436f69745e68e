// The OpenAPI document and the interactive reference, built from the routes the API registered: a second Fastify app
// that holds the same routes (schemas only, never serving them), with Swagger and its UI registered on it.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packagePath } from '../../package-root.js';
import { portalAssetsDir } from '../portal/portal-files.js';
import { finishDocument } from './document.js';

/** The reference's look (the portal's header, colours and fonts), read from src/ (the build does not copy it). */
function themeFile(name: string): Promise<string> {
  return readFile(join(packagePath('src/http/openapi/reference-theme'), name), 'utf8');
}

/** Swagger UI's theme: every file served from this origin under /docs/static/theme/, so the CSP stays as it was. */
async function portalTheme() {
  return {
    title: 'API reference · QR Manager',
    css: [
      { filename: 'portal-header.css', content: await readFile(`${portalAssetsDir()}portal-header.css`, 'utf8') },
      { filename: 'api-reference.css', content: await themeFile('api-reference.css') },
    ],
    js: [{ filename: 'api-reference.js', content: await themeFile('api-reference.js') }],
    favicon: [
      {
        filename: 'favicon.svg',
        rel: 'icon',
        sizes: 'any',
        type: 'image/svg+xml',
        content: await readFile(`${portalAssetsDir()}favicon.svg`),
      },
    ],
  };
}

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
            description:
              "Create a key on the developer portal's Keys page (`/portal/keys`), or, as the operator, with " +
              '`npm run --silent qrm -- keys create --email E` (it prints the secret alone on stdout).',
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
  await reference.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: false },
    staticCSP: true,
    theme: await portalTheme(),
  });
  for (const route of routes) {
    const { method, url, schema, config, constraints } = route;
    reference.route({ method, url, schema, config, constraints, exposeHeadRoute: false, handler: () => undefined });
  }
  await reference.ready();
  return { document: reference.swagger() as unknown as Record<string, unknown>, reference };
}
