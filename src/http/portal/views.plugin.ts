// Server-rendered pages: @fastify/view with Eta, which escapes every interpolation unless a template opts out.
import view from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { portalViewsDir } from './portal-files.js';
import { viewHelpers } from './view-helpers.js';

export interface ViewsOptions {
  /** Where the portal is mounted (e.g. `/portal`); every link in the templates starts with it. */
  base: string;
}

async function views(app: FastifyInstance, options: ViewsOptions): Promise<void> {
  await app.register(view, {
    engine: { eta: new Eta({ autoEscape: true }) },
    root: portalViewsDir(),
    viewExt: 'eta',
    layout: 'layout',
    production: true, // compile each template once
    defaultContext: { base: options.base, h: viewHelpers },
  });
}

export default fp(views, { name: 'portal-views' });
