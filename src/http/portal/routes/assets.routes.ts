// The portal's static files (stylesheet, scripts, icon, and Chart.js from its npm package), read once at start.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { portalAssetsDir } from '../portal-files.js';

const FILES = {
  'portal-header.css': 'text/css; charset=utf-8',
  'portal.css': 'text/css; charset=utf-8',
  'portal.js': 'text/javascript; charset=utf-8',
  'charts.js': 'text/javascript; charset=utf-8',
  'chart.umd.js': 'text/javascript; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
} as const;
type AssetName = keyof typeof FILES;

/** Chart.js's browser build, served from this origin (the CSP allows no other): upgraded with the npm package. */
function chartJsFile(): string {
  return join(dirname(createRequire(import.meta.url).resolve('chart.js')), 'chart.umd.js');
}

const pathOf = (name: AssetName) => (name === 'chart.umd.js' ? chartJsFile() : join(portalAssetsDir(), name));

export const assetsRoutes: FastifyPluginAsyncZod = async (app) => {
  const assets = new Map(
    (Object.keys(FILES) as AssetName[]).map((name) => {
      const body = readFileSync(pathOf(name));
      return [name, { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` }] as const;
    }),
  );

  app.get(
    '/assets/:name',
    {
      config: { access: 'public' },
      schema: { hide: true, params: z.object({ name: z.enum(Object.keys(FILES) as [AssetName, ...AssetName[]]) }) },
    },
    async (request, reply) => {
      const asset = assets.get(request.params.name)!;
      reply
        .header('Content-Type', FILES[request.params.name])
        .header('Cache-Control', 'public, max-age=300')
        .header('ETag', asset.etag);
      if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
      return reply.send(asset.body);
    },
  );
};
