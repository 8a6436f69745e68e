// The plans page: free against paid, what each includes, and how an upgrade happens today (the operator does it).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { allPlans, OUTPUT_FORMATS, planAllowsFormat } from '../../../domain/plan-catalogue.js';
import type { AccountStore } from '../../../domain/ports/account-store.js';
import { requireAccount } from '../account-guard.js';
import { renderPage } from '../page.js';

export interface PlansRoutesOptions {
  base: string;
  accounts: AccountStore;
}

export const plansRoutes: FastifyPluginAsyncZod<PlansRoutesOptions> = async (app, options) => {
  app.get('/plans', { schema: { hide: true }, preHandler: requireAccount(options) }, async (request, reply) => {
    const plans = allPlans().map((plan) => ({
      ...plan,
      paid: plan.monthlyPriceUsd > 0,
      formatList: OUTPUT_FORMATS.map((format) => ({ id: format, included: planAllowsFormat(plan, format), paidOnly: !planAllowsFormat(allPlans()[0]!, format) })),
    }));
    return renderPage(request, reply, 'plans', { title: 'Plans', nav: 'plans', plans, current: request.account!.plan });
  });
};
