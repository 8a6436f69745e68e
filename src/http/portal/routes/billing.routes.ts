// Self-serve billing in the portal: "Upgrade" opens Stripe Checkout, "Manage billing" the Stripe customer portal (only
// with Stripe configured).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { BillingDeps } from '../../../services/billing.js';
import { openCustomerPortal, startCheckout } from '../../../services/billing.js';

export interface BillingRoutesOptions {
  base: string;
  deps: BillingDeps;
  /** PUBLIC_URL (required with Stripe): where Stripe sends the browser back. */
  publicUrl: string;
}

const CheckoutForm = z.object({ plan: z.string().min(1).max(64), _csrf: z.string().max(256).optional() });
const ManageForm = z.object({ _csrf: z.string().max(256).optional() });

export const billingRoutes: FastifyPluginAsyncZod<BillingRoutesOptions> = async (app, options) => {
  const { base, deps } = options;
  const plansPage = `${options.publicUrl.replace(/\/$/, '')}${base}/plans`;

  app.post(
    '/billing/checkout',
    {
      config: {
        access: 'billing.manage',
        audit: { exempt: "opens Stripe's checkout: the plan changes, and is logged, when Stripe says it is paid" },
      },
      schema: { hide: true, body: CheckoutForm },
      preHandler: app.requireCsrf,
    },
    async (request, reply) => {
      const url = await startCheckout(deps, request.account!, request.body.plan, {
        success: `${plansPage}?checkout=success`,
        cancel: `${plansPage}?checkout=cancelled`,
      });
      return reply.redirect(url, 303);
    },
  );

  app.post(
    '/billing/manage',
    {
      config: { access: 'billing.manage', audit: { exempt: "opens Stripe's customer portal: nothing here changes" } },
      schema: { hide: true, body: ManageForm },
      preHandler: app.requireCsrf,
    },
    async (request, reply) => {
      return reply.redirect(await openCustomerPortal(deps, request.account!, plansPage), 303);
    },
  );
};
