// GET /r/{slug}: a dynamic code's scan — 302 to its target, counted after the answer is sent. No key, never metered.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { SLUG_PATTERN } from '../../domain/dynamic-code.js';
import type { DynamicCodeStore } from '../../domain/ports/dynamic-code-store.js';
import type { ScanRecorder } from '../../domain/ports/scan-ledger.js';
import { deviceClassOf, languageOf, visitorKey } from '../../domain/scan.js';
import type { ResponseDoc } from '../openapi/operation-doc.js';
import { goneHtml, notFoundHtml } from './pages.js';

export interface RedirectRouteDeps {
  codes: Pick<DynamicCodeStore, 'findBySlug'>;
  scans: ScanRecorder;
  clock: () => Date;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when the answer is a redirect: the code whose scan is recorded once the answer is sent. */
    scannedCode: string | undefined;
  }
}

const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
  'X-Content-Type-Options': 'nosniff',
};

const NO_STORE = { 'Cache-Control': { description: '`no-store`: every scan reaches the service.', required: true, schema: { const: 'no-store' } } };
const HTML_PAGE = { 'text/html': { schema: { type: 'string' } } };

const RESPONSES: Record<string, ResponseDoc> = {
  '302': {
    description: "To the code's current target.",
    headers: { Location: { description: 'The target.', required: true, schema: { type: 'string', format: 'uri' } }, ...NO_STORE },
  },
  '404': { description: 'Unknown code: a small HTML page.', content: HTML_PAGE, headers: NO_STORE },
  '410': { description: 'Paused, deleted or disabled code: a small HTML page.', content: HTML_PAGE, headers: NO_STORE },
};

/** The stored target as a header value: WHATWG serialisation percent-encodes what a header cannot carry. */
function location(target: string): string {
  return new URL(target).href;
}

export const redirectRoute: FastifyPluginAsyncZod<RedirectRouteDeps> = async (app, deps) => {
  app.decorateRequest('scannedCode', undefined);

  app.get(
    '/r/:slug',
    {
      schema: {
        operationId: 'followDynamicCode',
        summary: 'Follow a dynamic code (what a scan opens)',
        description:
          "302 to the code's current target. `Cache-Control: no-store`, so every scan reaches the service and is counted; " +
          '`Referrer-Policy: no-referrer`. A paused, deleted or disabled code answers a small HTML page with 410, an unknown one 404. No API key.',
        tags: ['dynamic codes'],
        security: [],
        params: z.object({ slug: z.string().describe('The slug of the short URL.') }),
        'x-document': { responses: RESPONSES },
      },
    },
    async (request, reply) => {
      reply.header('Cache-Control', 'no-store').header('Referrer-Policy', 'no-referrer');
      const { slug } = request.params;
      const found = SLUG_PATTERN.test(slug) ? await deps.codes.findBySlug(slug) : undefined;
      if (!found) return reply.code(404).headers(PAGE_HEADERS).send(notFoundHtml);
      if (found.state !== 'active') return reply.code(410).headers(PAGE_HEADERS).send(goneHtml);
      request.scannedCode = found.codeId;
      return reply.code(302).header('Location', location(found.target)).send();
    },
  );

  // After the answer is on its way: the scan never delays the redirect, and a failure to count it never fails it.
  app.addHook('onResponse', async (request) => {
    const codeId = request.scannedCode;
    if (codeId === undefined) return;
    const userAgent = request.headers['user-agent'];
    deps.scans.record({
      codeId,
      at: deps.clock(),
      visitor: visitorKey(request.ip, userAgent),
      device: deviceClassOf(userAgent),
      language: languageOf(request.headers['accept-language']),
    });
  });
};
