// The plans page: free against paid, what each includes, and how to move: Upgrade through Stripe when configured, else
// the operator.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isLive } from '../../../domain/billing.js';
import { isSelfServe, OUTPUT_FORMATS, planAllowsFormat, type PlanCatalogue } from '../../../domain/plan-catalogue.js';
import type { AccountStore } from '../../../domain/ports/account-store.js';
import { noticeFrom } from '../notices.js';
import { renderPage } from '../page.js';

export interface PlansRoutesOptions {
  base: string;
  accounts: AccountStore;
  plans: PlanCatalogue;
  /** Stripe is configured: buyable plans show "Upgrade", and accounts with a customer "Manage billing". */
  selfServe: boolean;
}

/** The notices Stripe's return URL names (`?checkout=success`). */
const CHECKOUT_NOTICES = {
  success:
    'Thank you: your payment went through. Your new plan applies as soon as Stripe confirms it, usually within ' +
    'seconds; reload this page to see it.',
  cancelled: 'Checkout was cancelled: nothing was charged and your plan is unchanged.',
} as const;

const PlansQuery = z.object({ checkout: z.string().max(32).optional() });

export const plansRoutes: FastifyPluginAsyncZod<PlansRoutesOptions> = async (app, options) => {
  app.get(
    '/plans',
    { config: { access: 'plans.read' }, schema: { hide: true, querystring: PlansQuery } },
    async (request, reply) => {
      const catalogue = options.plans;
      const account = request.account!;
      const subscribed = isLive(account.billing?.status);
      const plans = catalogue.plans.map((plan) => ({
        ...plan,
        paid: plan.monthlyPriceUsd > 0,
        buyable: options.selfServe && isSelfServe(plan),
        // "paid plans" marks what the plan new accounts start on lacks.
        formatList: OUTPUT_FORMATS.map((format) => ({
          id: format,
          included: planAllowsFormat(plan, format),
          paidOnly: !planAllowsFormat(catalogue.defaultPlan, format),
        })),
      }));
      const current = account.plan;
      // The example command names a plan worth moving to: the cheapest paid one that is not the account's own.
      const upgradeTo =
        catalogue.plans
          .filter((plan) => plan.id !== current && plan.monthlyPriceUsd > 0)
          .sort((a, b) => a.monthlyPriceUsd - b.monthlyPriceUsd)[0]?.id ?? 'PLAN';
      const notice = noticeFrom(CHECKOUT_NOTICES, request.query.checkout);
      return renderPage(request, reply, 'plans', {
        title: 'Plans',
        nav: 'plans',
        plans,
        current,
        upgradeTo,
        selfServe: options.selfServe,
        subscribed,
        billing: account.billing,
        defaultPlanName: catalogue.defaultPlan.name,
        notice,
      });
    },
  );
};
