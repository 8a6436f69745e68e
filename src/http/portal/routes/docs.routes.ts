// The docs pages (docs/*.md) in the portal's look, public: rendered once, on the first request for one (markdown-it
// costs start-up time every server would pay), found by name, never by path.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../../domain/errors.js';
import type { DocsPage } from '../docs-markdown.js';
import { renderPage } from '../page.js';
import { docsPagesDir } from '../portal-files.js';

export interface DocsRoutesOptions {
  base: string;
}

/** Every docs/*.md page by its name (`teams` for docs/teams.md), rendered. */
async function loadDocsPages(base: string): Promise<Map<string, DocsPage>> {
  const dir = docsPagesDir();
  const names = (await readdir(dir)).filter((file) => /^[a-z0-9-]+\.md$/i.test(file)).map((file) => file.slice(0, -3));
  const { docsRenderer } = await import('../docs-markdown.js');
  const render = docsRenderer(`${base}/docs`, new Set(names));
  const pages = await Promise.all(
    names.sort().map(async (name) => [name, render(await readFile(join(dir, `${name}.md`), 'utf8'))] as const),
  );
  return new Map(pages);
}

// A name only: the page is looked up among those loaded, so no request can name a file (`..`, `%2F`) of its own.
const DocsParams = z.object({ page: z.string().max(100) });

export const docsRoutes: FastifyPluginAsyncZod<DocsRoutesOptions> = async (app, options) => {
  let loaded: Promise<Map<string, DocsPage>> | undefined;
  const guides = (): Promise<Map<string, DocsPage>> => {
    loaded ??= loadDocsPages(options.base).catch((error: unknown) => {
      loaded = undefined; // the next request tries again
      throw error;
    });
    return loaded;
  };

  app.get('/docs/', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) =>
    renderPage(request, reply, 'docs-index', {
      title: 'Guides',
      nav: 'docs',
      pages: [...(await guides())].map(([name, page]) => ({ name, title: page.title })),
    }),
  );
  app.get(
    '/docs/:page',
    { config: { access: 'public' }, schema: { hide: true, params: DocsParams } },
    async (request, reply) => {
      const page = (await guides()).get(request.params.page);
      if (!page) throw new ApiError('not_found', `there is no guide named ${request.params.page}`);
      return renderPage(request, reply, 'docs-page', { title: page.title, nav: 'docs', html: page.html });
    },
  );
};
