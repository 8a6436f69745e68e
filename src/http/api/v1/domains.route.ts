// /api/v1/QRManager/domains: custom domains — add (pending until verified), list, read, verify now, delete when no code
// uses it.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  DOMAIN_STATUSES,
  HOSTNAME_MAX_LENGTH,
  proofName,
  verificationUrl,
  type CustomDomain,
} from '../../../domain/custom-domain.js';
import type { DomainProbe } from '../../../domain/ports/domain-probe.js';
import {
  addDomain,
  deleteDomain,
  getDomain,
  listDomains,
  verifyDomain,
  type CustomDomainDeps,
} from '../../../services/custom-domains.js';
import { header } from '../../openapi/operation-doc.js';
import { COMMON_ERRORS, problemResponses } from '../../openapi/problem.schema.js';
import { callerOf } from './api-key-auth.js';
import { pageOf } from '../../../domain/list-page.js';
import { PageQuery, pageSchema } from './list-page.js';
import { keyWithScope } from './route-scope.js';

export interface DomainsRouteDeps extends CustomDomainDeps {
  probe: DomainProbe;
}

const Domain = z
  .object({
    id: z.string().describe('`dom_…`: send it as `domain` (with a `slug`) when creating or changing a dynamic code.'),
    hostname: z.string().describe('Lowercase; an internationalised name in its punycode (`xn--…`) form.'),
    status: z
      .enum(DOMAIN_STATUSES)
      .describe(
        '`pending` until its TXT record proves it (expires after 7 days); `active` takes codes; `suspended` ' +
          'when a daily re-check found the ' +
          'record gone (its codes stop answering until it is back); `expired` when never proved in time.',
      ),
    verification: z
      .object({
        type: z.literal('dns-txt').describe('The proof: a DNS TXT record.'),
        name: z.string().describe('`_qrm-challenge.<hostname>`: the name of the TXT record to add.'),
        value: z.string().describe("The TXT record's value: the token."),
        token: z.string().describe('The same token.'),
        url: z
          .string()
          .describe(
            '`http://<hostname>/.well-known/qrm-domain/<token>`: answers the token once the hostname reaches this ' +
              'service (advice only).',
          ),
      })
      .describe(
        'How the domain becomes active: add the TXT record `name` = `value` at your DNS; it is checked every ' +
          'few minutes, or now with POST …/verify. ' +
          'Keep the record: it is checked again every day.',
      ),
    lastCheck: z
      .object({
        at: z.string().describe('ISO 8601.'),
        problem: z.string().nullable().describe('Why the check did not pass; null when it did.'),
      })
      .nullable()
      .describe('The last check of the domain (automatic or requested).'),
    createdAt: z.string().describe('ISO 8601.'),
    verifiedAt: z.string().nullable().describe('ISO 8601, once active.'),
  })
  .meta({ id: 'CustomDomain' });

export function domainView(domain: CustomDomain): z.infer<typeof Domain> {
  return {
    id: domain.id,
    hostname: domain.hostname,
    status: domain.status,
    verification: {
      type: 'dns-txt',
      name: proofName(domain.hostname),
      value: domain.token,
      token: domain.token,
      url: verificationUrl(domain),
    },
    lastCheck: domain.lastCheck && { at: domain.lastCheck.at.toISOString(), problem: domain.lastCheck.problem },
    createdAt: domain.createdAt.toISOString(),
    verifiedAt: domain.verifiedAt?.toISOString() ?? null,
  };
}

const Params = z.object({ id: z.string().min(1).max(64).describe('The domain id (`dom_…`).') });
const AUTH_ERRORS = [
  'missing_api_key',
  'invalid_api_key',
  'expired_api_key',
  'insufficient_scope',
  ...COMMON_ERRORS,
] as const;
const tags = ['custom domains'];
const security = keyWithScope('domains');

export const domainsRoute: FastifyPluginAsyncZod<DomainsRouteDeps> = async (app, deps) => {
  app.post(
    '/QRManager/domains',
    {
      config: { audit: ['domain.created'] },
      schema: {
        operationId: 'createCustomDomain',
        summary: 'Add a custom domain',
        description:
          'Registers a hostname of yours for dynamic codes (`https://<hostname>/<slug>`). ' +
          'It starts `pending`: add the TXT record ' +
          ('`_qrm-challenge.<hostname>` = `verification.value` and point the hostname at this service (DNS and ' +
            'your proxy); it becomes `active` ') +
          ('once the TXT record holds the token (never by the HTTP check alone). A hostname belongs to one ' +
            'account; a hostname whose ') +
          ("`_qrm-challenge` record still holds an earlier claim's token is 409 `hostname_taken` until that " +
            'record is removed. ') +
          ('Each plan allows a number of domains (its `customDomains` figure; 0: 403 `plan_upgrade_required`). ' +
            "IP addresses and this service's own hostname are refused."),
        tags,
        security,
        body: z.strictObject({
          hostname: z
            .string()
            .min(1)
            .max(HOSTNAME_MAX_LENGTH)
            .describe('e.g. `go.example.com`; IDNA names are stored as punycode.'),
        }),
        response: {
          201: Domain,
          ...problemResponses([
            'invalid_request',
            'plan_upgrade_required',
            'domain_limit_reached',
            'hostname_taken',
            'payload_too_large',
            'unsupported_media_type',
            ...AUTH_ERRORS,
          ]),
        },
        'x-document': { headers: { '201': { Location: header.location('The new domain.') } } },
      },
    },
    async (request, reply) => {
      const domain = await addDomain(deps, callerOf(request), request.body);
      await app.audit(request, {
        accountId: callerOf(request).accountId,
        plan: callerOf(request).plan,
        action: 'domain.created',
        target: { type: 'domain', id: domain.id },
        changes: { hostname: domain.hostname },
      });
      return reply.code(201).header('Location', `/api/v1/QRManager/domains/${domain.id}`).send(domainView(domain));
    },
  );

  app.get(
    '/QRManager/domains',
    {
      schema: {
        operationId: 'listCustomDomains',
        summary: 'List your custom domains, newest first',
        tags,
        security,
        querystring: PageQuery,
        response: { 200: pageSchema(Domain), ...problemResponses(['invalid_request', ...AUTH_ERRORS]) },
      },
    },
    async (request) => {
      const page = pageOf(await listDomains(deps, callerOf(request).accountId), request.query);
      return { items: page.items.map(domainView), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/QRManager/domains/:id',
    {
      schema: {
        operationId: 'getCustomDomain',
        summary: 'Read a custom domain',
        tags,
        security,
        params: Params,
        response: { 200: Domain, ...problemResponses(['invalid_request', 'not_found', ...AUTH_ERRORS]) },
      },
    },
    async (request) => domainView(await getDomain(deps, callerOf(request).accountId, request.params.id)),
  );

  app.post(
    '/QRManager/domains/:id/verify',
    {
      config: { audit: ['domain.verified'] },
      schema: {
        operationId: 'verifyCustomDomain',
        summary: 'Check a custom domain now',
        description:
          'Looks up the TXT record `verification.name` and answers the domain as it then is: `active` when the ' +
          'record holds the token (a pending, ' +
          ('suspended or expired domain), else unchanged with `lastCheck.problem` saying why. Once proved, ' +
            '`verification.url` is fetched too (the ') +
          ('same rules as webhooks: no private or loopback addresses): when it does not reach this service, ' +
            '`lastCheck.problem` says so (advice only).'),
        tags,
        security,
        params: Params,
        response: { 200: Domain, ...problemResponses(['invalid_request', 'not_found', ...AUTH_ERRORS]) },
      },
    },
    async (request) => {
      const domain = await verifyDomain(deps, deps.probe, callerOf(request).accountId, request.params.id);
      if (domain.status === 'active') {
        await app.audit(request, {
          accountId: callerOf(request).accountId,
          plan: callerOf(request).plan,
          action: 'domain.verified',
          target: { type: 'domain', id: domain.id },
          changes: { hostname: domain.hostname },
        });
      }
      return domainView(domain);
    },
  );

  app.delete(
    '/QRManager/domains/:id',
    {
      config: { audit: ['domain.deleted'] },
      schema: {
        operationId: 'deleteCustomDomain',
        summary: 'Delete a custom domain',
        description:
          'Refused with 409 `domain_in_use` while any code lives on it (move those codes with `domain: null`, ' +
          'or delete them, first).',
        tags,
        security,
        params: Params,
        response: {
          204: z.null().describe('Deleted.'),
          ...problemResponses(['invalid_request', 'not_found', 'domain_in_use', ...AUTH_ERRORS]),
        },
      },
    },
    async (request, reply) => {
      await deleteDomain(deps, callerOf(request).accountId, request.params.id);
      await app.audit(request, {
        accountId: callerOf(request).accountId,
        plan: callerOf(request).plan,
        action: 'domain.deleted',
        target: { type: 'domain', id: request.params.id },
      });
      return reply.code(204).send(null);
    },
  );
};
