// GET /r/{slug}: a dynamic code's scan — 302 to the target its rules choose, counted after the answer is sent; POST:
// its password form. No key, never metered.
import formbody from '@fastify/formbody';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { SLUG_PATTERN } from '../../domain/dynamic-code.js';
import type { DynamicCodeStore } from '../../domain/ports/dynamic-code-store.js';
import type { ScanRecorder } from '../../domain/ports/scan-ledger.js';
import { asksNotToBeTracked, DEFAULT_SCAN_PRIVACY, keptOfScan } from '../../domain/scan-privacy.js';
import { deviceClassOf, languageOf } from '../../domain/scan.js';
import { SCAN_RESPONSES, unlockFormDocument } from './scan-docs.js';
import { unanswerableHtml } from './pages.js';
import { BotVerdicts } from './bot-verdicts.js';
import { LocationMemo } from './location-memo.js';
import { HmacSha256 } from '../../domain/hmac-sha256.js';
import { answerScan, PAGE_HEADERS, PASSWORD_GUESSES, type ScanAnswerDeps, type ScanMemory } from './scan-answer.js';
import { COMMON_ERRORS, problemResponses } from '../openapi/problem.schema.js';
import type { CustomDomainStore } from '../../domain/ports/custom-domain-store.js';
import { customDomainRoutes } from './custom-domain.routes.js';
import type { ServiceHosts } from '../service-hosts.js';

export interface RedirectRouteDeps extends ScanAnswerDeps {
  codes: Pick<DynamicCodeStore, 'findBySlug' | 'findByVanity'>;
  scans: ScanRecorder;
  /** Custom domains: scans of `https://<hostname>/<slug>` arrive here by Host. */
  domains: Pick<CustomDomainStore, 'findByHostname'>;
  /**
   * This service's own hosts; on any other, `/r/` answers only the codes of the active custom domain the Host names.
   */
  hosts: ServiceHosts;
}

const params = z.object({ slug: z.string().describe('The slug of the short URL.') });

/**
 * The form's password; anything else a phone's browser could send (no field, another media type) is a wrong password,
 * not an API error.
 */
function submittedPassword(body: unknown): string {
  const password = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).password : undefined;
  return typeof password === 'string' ? password : '';
}

export const redirectRoute: FastifyPluginAsyncZod<RedirectRouteDeps> = async (app, deps) => {
  const memory: ScanMemory = {
    bots: new BotVerdicts(),
    locations: new LocationMemo(),
    splitHash: new HmacSha256(deps.splitKey),
  };
  app.decorateRequest('scannedCode', undefined);
  app.decorateRequest('splitArm', undefined);
  app.decorateRequest('scanVisitor', undefined);
  app.decorateRequest('scanPrivacy', undefined);
  await app.register(formbody, { bodyLimit: 2_048 });
  // A scan is answered for a phone's browser: what fails before the handler (a body too large or unreadable, a media
  // type no parser takes)
  // is a small HTML page too, never a problem document.
  // Anything else (overload, a store down) goes on to the service's own handler.
  app.setErrorHandler(async (error: { statusCode?: number }, _request, reply) => {
    const status = error.statusCode ?? 500;
    if (status < 400 || status >= 500) throw error;
    return reply.code(status).headers(PAGE_HEADERS).header('Cache-Control', 'no-store').send(unanswerableHtml);
  });
  /** The code a slug names, as seen from the request's Host: on a custom domain, only that domain's account's codes. */
  const lookUp = async (request: FastifyRequest, slug: string) => {
    const code = SLUG_PATTERN.test(slug) ? await deps.codes.findBySlug(slug) : undefined;
    const host = deps.hosts.foreignHost(request.host);
    if (host === undefined || code === undefined) return code;
    const domain = await deps.domains.findByHostname(host);
    return domain?.status === 'active' && domain.accountId === code.accountId ? code : undefined;
  };

  app.get(
    '/r/:slug',
    {
      schema: {
        operationId: 'followDynamicCode',
        summary: 'Follow a dynamic code (what a scan opens)',
        description:
          "302 to the code's target, or to the first of its `rules` whose conditions all hold. `Cache-Control: " +
          'no-store`, so every scan reaches the service ' +
          ('and is counted; `Referrer-Policy: no-referrer`. A password-protected code answers a small HTML form ' +
            '(401); a paused, deleted, disabled or ') +
          ('expired code (without `expiredTarget`) a small HTML page with 410, an unknown one 404. No API key. ' +
            "On an active custom domain's `Host`, ") +
          ("only that domain's account's codes answer (another account's slug is 404); on any other Host that " +
            "is not this service's own, 404."),
        tags: ['dynamic codes'],
        security: [],
        params,
        // A path the router refuses (too long, malformed percent-encoding) is a problem document, as everywhere.
        response: problemResponses(['invalid_request', ...COMMON_ERRORS]),
        'x-document': { responses: SCAN_RESPONSES },
      },
    },
    async (request, reply) => {
      const found = await lookUp(request, request.params.slug);
      return answerScan(deps, memory, found, request, reply, null);
    },
  );

  app.post(
    '/r/:slug',
    {
      bodyLimit: 2_048,
      schema: {
        operationId: 'unlockDynamicCode',
        summary: "Answer a password-protected code's form",
        description:
          `The form a protected code shows posts here (\`application/x-www-form-urlencoded\`, field ` +
          `\`password\`). The right password gets the 302; ` +
          (`a wrong one the form again (401). After ${PASSWORD_GUESSES.max} wrong passwords for one code from ` +
            `one address (an IPv6 /64) within `) +
          (`${PASSWORD_GUESSES.windowMs / 60_000} minutes, a 429 page with \`Retry-After\` until the window ` +
            `ends; after ${PASSWORD_GUESSES.perCodeMax} `) +
          ('wrong passwords for one code from all addresses together, a 429 page of its own for every address ' +
            'until that window ends. A right ') +
          'password is never counted as a guess. A code without a password answers as to a GET.',
        tags: ['dynamic codes'],
        security: [],
        params,
        response: problemResponses(['invalid_request', ...COMMON_ERRORS]),
        'x-document': unlockFormDocument(SCAN_RESPONSES),
      },
    },
    async (request, reply) => {
      const found = await lookUp(request, request.params.slug);
      return answerScan(deps, memory, found, request, reply, submittedPassword(request.body));
    },
  );

  // After the answer is on its way: the scan never delays the redirect, and a failure to count it never fails it.
  app.addHook('onResponse', (request, _reply, done) => {
    const code = request.scannedCode;
    const visitor = request.scanVisitor;
    if (code === undefined || visitor === undefined) return done();
    const privacy = request.scanPrivacy ?? DEFAULT_SCAN_PRIVACY;
    deps.scans.record({
      codeId: code.codeId,
      accountId: code.accountId,
      at: deps.clock(),
      device: deviceClassOf(request.headers['user-agent']),
      language: languageOf(request.headers['accept-language']),
      ...(request.splitArm === undefined ? {} : { arm: request.splitArm }),
      ...keptOfScan(privacy, asksNotToBeTracked(request.headers), visitor.place, visitor.visitor),
      bot: visitor.bot,
    });
    done();
  });

  // Last, so that the scans they answer are counted by the hook above and their forms read by the same parser.
  await app.register(customDomainRoutes, { ...deps, memory, submittedPassword });
};
