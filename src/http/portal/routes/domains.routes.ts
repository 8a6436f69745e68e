// Domains page: the account's custom domains (add, show the TXT record that proves each, check now, delete).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HOSTNAME_MAX_LENGTH, proofName } from '../../../domain/custom-domain.js';
import type { AuditAction, AuditChanges } from '../../../domain/audit.js';
import { ApiError } from '../../../domain/errors.js';
import type { AccountStore } from '../../../domain/ports/account-store.js';
import type { DomainProbe } from '../../../domain/ports/domain-probe.js';
import {
  addDomain,
  deleteDomain,
  listDomains,
  verifyDomain,
  type CustomDomainDeps,
} from '../../../services/custom-domains.js';
import { noticeFrom, NoticeQuery } from '../notices.js';
import { accountPage } from '../page.js';

export interface DomainsRoutesOptions extends CustomDomainDeps {
  base: string;
  accounts: AccountStore;
  probe: DomainProbe;
}

const NOTICES = {
  deleted: 'The domain was deleted.',
  active: 'The domain is verified: codes can use it now.',
  pending: 'Its TXT record was not found yet; see the last check below.',
  suspended: 'Its TXT record is still missing; see the last check below.',
  expired: 'Its TXT record was not found; see the last check below.',
} as const;
const AddForm = z.object({ hostname: z.string().max(1000).optional(), _csrf: z.string().optional() });
const DomainParams = z.object({ id: z.string().min(1).max(100) });
/** What the page shows as refusals (the rest are the service's own errors). */
const FORM_ERRORS = new Set([
  'invalid_request',
  'plan_upgrade_required',
  'domain_limit_reached',
  'hostname_taken',
  'domain_in_use',
]);

export const domainsRoutes: FastifyPluginAsyncZod<DomainsRoutesOptions> = async (app, options) => {
  const { base } = options;

  const page = accountPage('domains', async (request) => {
    const account = request.account!;
    const domains = (await listDomains(options, account.id)).map((domain) => ({
      ...domain,
      txtName: proofName(domain.hostname),
    }));
    const limit = options.plans.get(account.plan).customDomains;
    return {
      title: 'Custom domains',
      nav: 'domains',
      domains,
      limit,
      included: limit !== 0,
      limitReached: limit !== null && domains.length >= limit,
      hostnameMax: HOSTNAME_MAX_LENGTH,
    };
  });
  const refused = (
    request: FastifyRequest,
    reply: FastifyReply,
    error: unknown,
    extra: Record<string, unknown> = {},
  ) => {
    if (!(error instanceof ApiError) || !FORM_ERRORS.has(error.code)) throw error;
    return page(request, reply, { error: error.message, ...extra }, error.status);
  };

  app.get(
    '/domains',
    { config: { access: 'read' }, schema: { hide: true, querystring: NoticeQuery } },
    async (request, reply) => page(request, reply, { notice: noticeFrom(NOTICES, request.query.notice) }),
  );

  const audited = (request: FastifyRequest, action: AuditAction, id: string, changes: AuditChanges = {}) =>
    app.audit(request, { accountId: request.account!.id, action, target: { type: 'domain', id }, changes });

  const addConfig = { access: 'domains.manage' as const, audit: ['domain.created' as const] };
  app.post(
    '/domains',
    { config: addConfig, schema: { hide: true, body: AddForm }, preHandler: app.requireCsrf },
    async (request, reply) => {
      const account = request.account!;
      try {
        const domain = await addDomain(
          options,
          { accountId: account.id, plan: account.plan },
          { hostname: request.body.hostname ?? '' },
        );
        await audited(request, 'domain.created', domain.id, { hostname: domain.hostname });
      } catch (error) {
        return refused(request, reply, error, { hostname: request.body.hostname });
      }
      return reply.redirect(`${base}/domains`, 303);
    },
  );

  app.post(
    '/domains/:id/verify',
    {
      config: { access: 'domains.manage', audit: ['domain.verified'] },
      schema: { hide: true, params: DomainParams },
      preHandler: app.requireCsrf,
    },
    async (request, reply) => {
      const domain = await verifyDomain(options, options.probe, request.account!.id, request.params.id);
      if (domain.status === 'active')
        await audited(request, 'domain.verified', domain.id, { hostname: domain.hostname });
      return reply.redirect(`${base}/domains?notice=${domain.status}`, 303);
    },
  );

  app.post(
    '/domains/:id/delete',
    {
      config: { access: 'domains.manage', audit: ['domain.deleted'] },
      schema: { hide: true, params: DomainParams },
      preHandler: app.requireCsrf,
    },
    async (request, reply) => {
      try {
        await deleteDomain(options, request.account!.id, request.params.id);
        await audited(request, 'domain.deleted', request.params.id);
      } catch (error) {
        return refused(request, reply, error);
      }
      return reply.redirect(`${base}/domains?notice=deleted`, 303);
    },
  );
};
