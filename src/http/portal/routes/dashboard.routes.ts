// The dashboard: plan, this month's requests and QRs against the plan, when they reset, and the account's scans as
// charts.
import { roleAllows } from '../../../domain/roles.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { MAX_ACTIVE_KEYS } from '../../../domain/api-key.js';
import type { PlanCatalogue } from '../../../domain/plan-catalogue.js';
import type { AccountStore } from '../../../domain/ports/account-store.js';
import type { KeyStore } from '../../../domain/ports/key-store.js';
import type { UsageMeter } from '../../../domain/ports/usage-meter.js';
import { usageReport } from '../../../services/accounts.js';
import { accountStats } from '../../../services/account-stats.js';
import type { ScanStatsDeps } from '../../../services/scan-stats.js';
import { scanCharts, usageChart } from '../charts.js';
import { listKeys } from '../../../services/api-keys.js';
import { renderPage } from '../page.js';

export interface DashboardRoutesOptions extends ScanStatsDeps {
  base: string;
  accounts: AccountStore;
  keys: KeyStore;
  meter: UsageMeter;
  clock: () => Date;
  plans: PlanCatalogue;
}

export const dashboardRoutes: FastifyPluginAsyncZod<DashboardRoutesOptions> = async (app, options) => {
  // Open to every member (joining and switching land here); a role that reads nothing (billing) goes to the plans.
  app.get('/', { config: { access: 'member' }, schema: { hide: true } }, async (request, reply) => {
    if (!roleAllows(request.member!.role, 'read')) return reply.redirect(`${options.base}/plans`, 303);
    const account = request.account!;
    const [report, keys, stats] = await Promise.all([
      usageReport(options, account),
      listKeys(options, account.id),
      accountStats(options, account.id, {}),
    ]);
    const plan = options.plans.get(account.plan);
    const charts = [
      usageChart('usage', [
        { label: 'Requests', used: report.requests, limit: plan.requestsPerMonth },
        { label: 'QR codes', used: report.qrs, limit: plan.qrsPerMonth },
      ]),
      ...scanCharts('Scans of your dynamic codes per day', stats),
    ];
    return renderPage(request, reply, 'dashboard', {
      title: 'Dashboard',
      nav: 'dashboard',
      plan,
      report,
      stats,
      charts,
      activeKeys: keys.filter((key) => !key.revokedAt).length,
      maxKeys: MAX_ACTIVE_KEYS,
    });
  });
};
