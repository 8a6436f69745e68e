// The dashboard: plan, this month's requests and QRs against the plan, and when they reset.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { MAX_ACTIVE_KEYS } from '../../../domain/api-key.js';
import type { PlanCatalogue } from '../../../domain/plan-catalogue.js';
import type { AccountStore } from '../../../domain/ports/account-store.js';
import type { KeyStore } from '../../../domain/ports/key-store.js';
import type { UsageMeter } from '../../../domain/ports/usage-meter.js';
import { usageReport } from '../../../services/accounts.js';
import { listKeys } from '../../../services/api-keys.js';
import { requireAccount } from '../account-guard.js';
import { renderPage } from '../page.js';

export interface DashboardRoutesOptions {
  base: string;
  accounts: AccountStore;
  keys: KeyStore;
  meter: UsageMeter;
  clock: () => Date;
  plans: PlanCatalogue;
}

export const dashboardRoutes: FastifyPluginAsyncZod<DashboardRoutesOptions> = async (app, options) => {
  app.get('/', { schema: { hide: true }, preHandler: requireAccount(options) }, async (request, reply) => {
    const account = request.account!;
    const [report, keys] = await Promise.all([usageReport(options, account), listKeys(options, account.id)]);
    return renderPage(request, reply, 'dashboard', {
      title: 'Dashboard',
      nav: 'dashboard',
      plan: options.plans.get(account.plan),
      report,
      activeKeys: keys.filter((key) => !key.revokedAt).length,
      maxKeys: MAX_ACTIVE_KEYS,
    });
  });
};
