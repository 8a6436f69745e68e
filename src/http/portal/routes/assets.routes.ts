// The portal's static files (stylesheet, progressive-enhancement script, icon), read once at start.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { portalAssetsDir } from '../portal-files.js';

const FILES = { 'portal.css': 'text/css; charset=utf-8', 'portal.js': 'text/javascript; charset=utf-8', 'favicon.svg': 'image/svg+xml' } as const;
type AssetName = keyof typeof FILES;

export const assetsRoutes: FastifyPluginAsyncZod = async (app) => {
  const assets = new Map(
    (Object.keys(FILES) as AssetName[]).map((name) => {
      const body = readFileSync(join(portalAssetsDir(), name));
      return [name, { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` }] as const;
    }),
  );

  app.get(
    '/assets/:name',
    { schema: { hide: true, params: z.object({ name: z.enum(Object.keys(FILES) as [AssetName, ...AssetName[]]) }) } },
    async (request, reply) => {
      const asset = assets.get(request.params.name)!;
      reply.header('Content-Type', FILES[request.params.name]).header('Cache-Control', 'public, max-age=300').header('ETag', asset.etag);
      if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
      return reply.send(asset.body);
    },
  );
};
