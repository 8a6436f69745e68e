// The QR manager: this month's codes of the signed-in account, with thumbnails that cost no quota.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../../domain/errors.js';
import { periodOf } from '../../../domain/period.js';
import type { PlanCatalogue } from '../../../domain/plan-catalogue.js';
import type { AccountStore } from '../../../domain/ports/account-store.js';
import type { Renderer } from '../../../domain/ports/renderer.js';
import type { UsageMeter } from '../../../domain/ports/usage-meter.js';
import { renderSpecOf } from '../../../services/render-spec.js';
import { renderPage } from '../page.js';
import { renderFitting, sendPng } from '../preview-image.js';

export interface QrsRoutesOptions {
  base: string;
  accounts: AccountStore;
  meter: UsageMeter;
  renderer: Renderer;
  clock: () => Date;
  plans: PlanCatalogue;
}

/** The page lists the most recent codes; only listed codes have thumbnails. */
const LISTED = 100;
const THUMBNAIL_PX = 192;

const ThumbnailParams = z.object({ fingerprint: z.string().regex(/^[0-9a-f]{64}$/) });

export const qrsRoutes: FastifyPluginAsyncZod<QrsRoutesOptions> = async (app, options) => {
  const thisMonths = (accountId: string) => options.meter.qrs(accountId, periodOf(options.clock()), LISTED);

  app.get('/qrs', { config: { access: 'read' }, schema: { hide: true } }, async (request, reply) => {
    const account = request.account!;
    const qrs = await thisMonths(account.id);
    return renderPage(request, reply, 'qrs', {
      title: 'QR codes',
      nav: 'qrs',
      qrs,
      listed: LISTED,
      plan: options.plans.get(account.plan),
      period: periodOf(options.clock()),
    });
  });

  app.get(
    '/qrs/:fingerprint.png',
    { config: { access: 'read' }, schema: { hide: true, params: ThumbnailParams } },
    async (request, reply) => {
      // Looked up among the account's own codes only: another account's fingerprint is simply not there.
      const qr = (await thisMonths(request.account!.id)).find(
        (code) => code.fingerprint === request.params.fingerprint,
      );
      if (!qr) throw new ApiError('not_found', 'no such QR code on this account this month');
      // The account viewing its own codes: rendered directly, never through generateQr, so nothing is metered.
      const account = request.account!;
      const spec = renderSpecOf(
        { content: qr.payload, type: qr.type, outputFormat: 'png', size: THUMBNAIL_PX, margin: 2 },
        qr.payload,
      );
      const png = await renderFitting(options.renderer, spec, { accountId: account.id, plan: account.plan });
      return sendPng(reply, png, 'private, max-age=3600');
    },
  );
};
