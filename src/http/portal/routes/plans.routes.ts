// The plans page: free against paid, what each includes, and how an upgrade happens today (the operator does it).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { OUTPUT_FORMATS, planAllowsFormat, type PlanCatalogue } from '../../../domain/plan-catalogue.js';
import type { AccountStore } from '../../../domain/ports/account-store.js';
import { requireAccount } from '../account-guard.js';
import { renderPage } from '../page.js';

export interface PlansRoutesOptions {
  base: string;
  accounts: AccountStore;
  plans: PlanCatalogue;
}

export const plansRoutes: FastifyPluginAsyncZod<PlansRoutesOptions> = async (app, options) => {
  app.get('/plans', { schema: { hide: true }, preHandler: requireAccount(options) }, async (request, reply) => {
    const catalogue = options.plans;
    const plans = catalogue.plans.map((plan) => ({
      ...plan,
      paid: plan.monthlyPriceUsd > 0,
      // "paid plans" marks what the plan new accounts start on lacks.
      formatList: OUTPUT_FORMATS.map((format) => ({
        id: format,
        included: planAllowsFormat(plan, format),
        paidOnly: !planAllowsFormat(catalogue.defaultPlan, format),
      })),
    }));
    const current = request.account!.plan;
    // The example command names a plan worth moving to: the cheapest paid one that is not the account's own.
    const upgradeTo =
      catalogue.plans.filter((plan) => plan.id !== current && plan.monthlyPriceUsd > 0).sort((a, b) => a.monthlyPriceUsd - b.monthlyPriceUsd)[0]?.id ?? 'PLAN';
    return renderPage(request, reply, 'plans', { title: 'Plans', nav: 'plans', plans, current, upgradeTo });
  });
};
