// Settings page: the account's scan privacy, read by every member who may read, changed by owners and admins.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AccountStore } from '../../../domain/ports/account-store.js';
import { roleAllows } from '../../../domain/roles.js';
import { SCAN_PRIVACY_LEVELS } from '../../../domain/scan-privacy.js';
import { changeAccountSettings } from '../../../services/account-settings.js';
import { appendAudit, type AuditDeps } from '../../../services/audit-log.js';
import { renderPage } from '../page.js';
import { portalAuditContext } from './keys.routes.js';

export interface SettingsRoutesOptions extends AuditDeps {
  base: string;
  accounts: AccountStore;
}

const SettingsQuery = z.object({ notice: z.literal('saved').optional() });
const SettingsForm = z.object({ scanPrivacy: z.enum(SCAN_PRIVACY_LEVELS), _csrf: z.string().optional() });

export const settingsRoutes: FastifyPluginAsyncZod<SettingsRoutesOptions> = async (app, options) => {
  const { base } = options;
  const settingsPage = (request: FastifyRequest, reply: FastifyReply, notice: boolean) =>
    renderPage(request, reply, 'settings', {
      title: 'Settings',
      nav: 'settings',
      scanPrivacy: request.account!.scanPrivacy,
      canManage: roleAllows(request.member!.role, 'settings.manage'),
      notice: notice ? 'Saved: scans recorded from now on follow the new setting.' : undefined,
    });

  app.get(
    '/settings',
    { config: { access: 'read' }, schema: { hide: true, querystring: SettingsQuery } },
    async (request, reply) => settingsPage(request, reply, request.query.notice === 'saved'),
  );

  app.post(
    '/settings',
    {
      config: { access: 'settings.manage', audit: ['settings.changed'] },
      schema: { hide: true, body: SettingsForm },
      preHandler: app.requireCsrf,
    },
    async (request, reply) => {
      const account = request.account!;
      const after = await changeAccountSettings(options, account.id, { scanPrivacy: request.body.scanPrivacy });
      if (after.scanPrivacy !== account.scanPrivacy) {
        await appendAudit(options, portalAuditContext(request), {
          accountId: account.id,
          plan: account.plan,
          action: 'settings.changed',
          target: { type: 'account', id: account.id },
          changes: { scanPrivacy: after.scanPrivacy },
        });
      }
      return reply.redirect(`${base}/settings?notice=saved`, 303);
    },
  );
};
