// Custom domains, by Host: GET/POST /{slug} answers a vanity code's scan, GET /.well-known/qrm-domain/{token} the
// verification. Any other Host: as before (404).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { VANITY_SLUG_PATTERN } from '../../domain/custom-domain.js';
import type { CustomDomainStore } from '../../domain/ports/custom-domain-store.js';
import type { DynamicCodeStore } from '../../domain/ports/dynamic-code-store.js';
import { verificationAnswer } from '../../services/custom-domains.js';
import { COMMON_ERRORS, problemResponses } from '../openapi/problem.schema.js';
import type { ServiceHosts } from '../service-hosts.js';
import { answerScan, type ScanAnswerDeps, type ScanMemory } from './scan-answer.js';
import { HTML_PAGE, SCAN_RESPONSES, unlockFormDocument } from './scan-docs.js';

export interface CustomDomainRouteDeps extends ScanAnswerDeps {
  codes: Pick<DynamicCodeStore, 'findByVanity'>;
  domains: Pick<CustomDomainStore, 'findByHostname'>;
  /** This service's own hosts: never a custom domain, so no lookup is made for them. */
  hosts: ServiceHosts;
  /** The redirect routes' memory, shared by both ways in. */
  memory: ScanMemory;
  /** Reads the password form's field from a parsed body. */
  submittedPassword(body: unknown): string;
}

const PROBLEM = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };

export const customDomainRoutes: FastifyPluginAsyncZod<CustomDomainRouteDeps> = async (app, deps) => {
  // Behind a trusted proxy (TRUST_PROXY) the client's Host arrives as X-Forwarded-Host: request.host reads it then, the
  // Host header otherwise.
  const customHost = (request: FastifyRequest): string | undefined => deps.hosts.foreignHost(request.host);

  /**
   * The scan on a custom domain: only an active domain's own account's codes answer. An unknown slug, or a domain not
   * active
   * (pending, suspended, expired), is the scan's 404 page; a Host that is no custom domain gets what any unknown path
   * gets.
   */
  const scanOn = async (request: FastifyRequest, reply: FastifyReply, submitted: string | null) => {
    const host = customHost(request);
    const domain = host === undefined ? undefined : await deps.domains.findByHostname(host);
    if (host === undefined || domain === undefined) return reply.callNotFound();
    const slug = (request.params as { slug: string }).slug;
    const found =
      domain.status === 'active' && VANITY_SLUG_PATTERN.test(slug)
        ? await deps.codes.findByVanity(host, slug)
        : undefined;
    const own = found?.accountId === domain.accountId ? found : undefined;
    return answerScan(deps, deps.memory, own, request, reply, submitted);
  };

  const params = z.object({
    slug: z.string().describe('The vanity slug of a code on the custom domain the Host names.'),
  });
  const responses = {
    ...SCAN_RESPONSES,
    '404': {
      description:
        'On a custom domain, an unknown slug: a small HTML page. On any other Host (this service itself): no ' +
        'such route, a problem document.',
      content: { ...HTML_PAGE, ...PROBLEM },
    },
  };

  app.get(
    '/:slug',
    {
      schema: {
        operationId: 'followVanityCode',
        summary: 'Follow a dynamic code on a custom domain (what a scan of `https://<hostname>/<slug>` opens)',
        description:
          'Only for a `Host` that is an active custom domain: the code with that slug there answers exactly as ' +
          '`/r/{slug}` does (rules, password, ' +
          ("expiry, scan counting). A domain that is not active answers the 404 page. On this service's own " +
            'host the path does not exist (404): ') +
          'it keeps `/r/` and random slugs only.',
        tags: ['custom domains'],
        security: [],
        params,
        response: problemResponses(['invalid_request', ...COMMON_ERRORS]),
        'x-document': { responses },
      },
    },
    (request, reply) => scanOn(request, reply, null),
  );

  app.post(
    '/:slug',
    {
      bodyLimit: 2_048,
      // A Host that is no custom domain never has its body read: the answer is the plain 404 any unknown path gets.
      onRequest: async (request, reply) => {
        const host = customHost(request);
        const slug = (request.params as { slug?: string }).slug ?? '';
        if (host === undefined || !VANITY_SLUG_PATTERN.test(slug) || !(await deps.domains.findByHostname(host)))
          return reply.callNotFound();
      },
      schema: {
        operationId: 'unlockVanityCode',
        summary: "Answer a password-protected code's form on a custom domain",
        description: 'As `POST /r/{slug}`, for a code on the custom domain the `Host` names.',
        tags: ['custom domains'],
        security: [],
        params,
        response: problemResponses(['invalid_request', ...COMMON_ERRORS]),
        'x-document': unlockFormDocument(responses),
      },
    },
    (request, reply) => scanOn(request, reply, deps.submittedPassword(request.body)),
  );

  app.get(
    '/.well-known/qrm-domain/:token',
    {
      schema: {
        operationId: 'customDomainVerification',
        summary: "A pending custom domain's verification answer",
        description:
          "Answers the domain's verification token as plain text when the `Host` is a custom domain not yet " +
          'active with this token: what the ' +
          'reachability check fetches at `http://<hostname>/.well-known/qrm-domain/<token>` ' +
          'to tell the owner the hostname reaches this service ' +
          '(advice only: a domain is proved by its DNS TXT record). Anything else: 404.',
        tags: ['custom domains'],
        security: [],
        params: z.object({ token: z.string().describe('The token of `verification`.') }),
        response: problemResponses(['not_found', 'invalid_request', ...COMMON_ERRORS]),
        'x-document': {
          responses: {
            '200': { description: 'The token, as text.', content: { 'text/plain': { schema: { type: 'string' } } } },
          },
        },
      },
    },
    async (request, reply) => {
      const host = customHost(request);
      const token = host === undefined ? undefined : await verificationAnswer(deps, host, request.params.token);
      if (token === undefined) return reply.callNotFound();
      return reply.type('text/plain; charset=utf-8').header('Cache-Control', 'no-store').send(token);
    },
  );
};
