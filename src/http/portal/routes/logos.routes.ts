// Logo manager: the account's logos with previews, upload (the image itself as the body, from the page's script), delete.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../../domain/errors.js';
import type { AccountStore } from '../../../domain/ports/account-store.js';
import { LOGO_MAX_UPLOAD_BYTES, LOGO_MEDIA_TYPES, type LogoMediaType } from '../../../domain/ports/logo-normaliser.js';
import { takeBurstSlot } from '../../../services/burst.js';
import { deleteLogo, listLogos, uploadLogo, type LogoDeps } from '../../../services/logos.js';
import { logoTooLarge } from '../../api/v1/logos.route.js';
import { refuseDeclaredOver } from '../../body-cap.js';
import { requireAccount } from '../account-guard.js';
import { renderPage } from '../page.js';

export interface LogosRoutesOptions extends LogoDeps {
  base: string;
  accounts: AccountStore;
}

const NOTICES = { uploaded: 'The logo was uploaded. Use it in the playground or as `logo.id` in the API.', deleted: 'The logo was deleted.' } as const;
const LogosQuery = z.object({ notice: z.string().max(32).optional() });
const LogoParams = z.object({ id: z.string().min(1).max(64) });

export const logosRoutes: FastifyPluginAsyncZod<LogosRoutesOptions> = async (app, options) => {
  const { base } = options;
  const guard = requireAccount(options);
  // Only in this context: uploads arrive as the image bytes themselves (the page's script posts the chosen file).
  for (const type of LOGO_MEDIA_TYPES)
    app.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit: LOGO_MAX_UPLOAD_BYTES }, (_request, body, done) => done(null, body));

  const logosPage = async (request: FastifyRequest, reply: FastifyReply, extra: { notice?: string; error?: string } = {}, status = 200) => {
    const account = request.account!;
    const records = await listLogos(options, account.id);
    // Previews inline as data: URIs (the CSP allows data: images, and logos are at most 512 px PNGs).
    const logos = await Promise.all(
      records.map(async (record) => {
        const stored = await options.logos.get(account.id, record.id);
        return { ...record, preview: stored ? `data:image/png;base64,${Buffer.from(stored.png).toString('base64')}` : '' };
      }),
    );
    const limit = options.plans.get(account.plan).logos;
    return renderPage(request, reply, 'logos', { title: 'Logos', nav: 'logos', logos, limit, maxBytes: LOGO_MAX_UPLOAD_BYTES, ...extra }, status);
  };

  app.get('/logos', { schema: { hide: true, querystring: LogosQuery }, preHandler: guard }, async (request, reply) => {
    const code = request.query.notice;
    return logosPage(request, reply, { notice: code !== undefined && Object.hasOwn(NOTICES, code) ? NOTICES[code as keyof typeof NOTICES] : undefined });
  });

  const admitUpload = async (request: FastifyRequest, reply: FastifyReply) => {
    await guard(request, reply);
    if (reply.sent) return;
    refuseDeclaredOver(request, reply, LOGO_MAX_UPLOAD_BYTES, logoTooLarge);
    await takeBurstSlot(options, { accountId: request.account!.id, plan: request.account!.plan }, 'logo uploads');
  };

  app.post(
    '/logos',
    { bodyLimit: LOGO_MAX_UPLOAD_BYTES, schema: { hide: true }, onRequest: admitUpload, preHandler: [guard, app.requireCsrf] },
    async (request, reply) => {
      const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim() as LogoMediaType;
      try {
        if (!Buffer.isBuffer(request.body)) throw new ApiError('unsupported_media_type', 'choose a PNG, JPEG or WebP file');
        const logo = await uploadLogo(options, { accountId: request.account!.id, plan: request.account!.plan }, request.body, mediaType);
        return reply.code(201).send({ id: logo.id });
      } catch (error) {
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        return reply.code(error.status).send({ error: error.message });
      }
    },
  );

  app.post('/logos/:id/delete', { schema: { hide: true, params: LogoParams }, preHandler: [guard, app.requireCsrf] }, async (request, reply) => {
    await deleteLogo(options, request.account!.id, request.params.id);
    return reply.redirect(`${base}/logos?notice=deleted`, 303);
  });
};
