// Logo manager: the account's logos with previews and names; upload (the image as the body, from the page's script),
// rename, delete.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { ApiError } from '../../../domain/errors.js';
import type { AccountStore } from '../../../domain/ports/account-store.js';
import { DEFAULT_LOGO_NAME, LOGO_NAME_MAX } from '../../../domain/ports/logo-store.js';
import { LOGO_MAX_UPLOAD_BYTES, LOGO_MEDIA_TYPES, type LogoMediaType } from '../../../domain/ports/logo-normaliser.js';
import { takeBurstSlot } from '../../../services/burst.js';
import { deleteLogo, listLogos, renameLogo, uploadLogo, type LogoDeps } from '../../../services/logos.js';
import { LogoName, logoTooLarge } from '../../api/v1/logos.route.js';
import { refuseDeclaredOver } from '../../body-cap.js';
import { noticeFrom, NoticeQuery } from '../notices.js';
import { renderPage } from '../page.js';

export interface LogosRoutesOptions extends LogoDeps {
  base: string;
  accounts: AccountStore;
}

const NOTICES = {
  uploaded: 'The logo was uploaded. Use it in the playground or as `logo.id` in the API.',
  renamed: 'The logo was renamed.',
  deleted: 'The logo was deleted.',
} as const;
const UploadQuery = z.strictObject({ name: LogoName.optional() });
const RenameForm = z.object({ _csrf: z.string().optional(), name: z.string() });
const LogoParams = z.object({ id: z.string().min(1).max(64) });
const ThumbnailQuery = z.object({ v: z.string().max(64).optional() });
/** Thumbnails fit this many pixels a side (the page shows them at 48 px; twice that for dense screens). */
const THUMBNAIL_SIDE = 96;

export const logosRoutes: FastifyPluginAsyncZod<LogosRoutesOptions> = async (app, options) => {
  const { base } = options;
  // Only in this context: uploads arrive as the image bytes themselves (the page's script posts the chosen file).
  for (const type of LOGO_MEDIA_TYPES)
    app.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit: LOGO_MAX_UPLOAD_BYTES }, (_request, body, done) =>
      done(null, body),
    );

  const logosPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { notice?: string; error?: string } = {},
    status = 200,
  ) => {
    const account = request.account!;
    // Previews are thumbnails by URL (cached by the browser and here), never the logos themselves inlined in the page.
    const logos = (await listLogos(options, account.id)).map((record) => ({
      ...record,
      preview: `${base}/logos/${encodeURIComponent(record.id)}/thumbnail?v=${encodeURIComponent(record.digest)}`,
    }));
    const limit = options.plans.get(account.plan).logos;
    const page = {
      title: 'Logos',
      nav: 'logos' as const,
      logos,
      limit,
      maxBytes: LOGO_MAX_UPLOAD_BYTES,
      nameMax: LOGO_NAME_MAX,
      defaultName: DEFAULT_LOGO_NAME,
    };
    return renderPage(request, reply, 'logos', { ...page, ...extra }, status);
  };

  app.get(
    '/logos',
    { config: { access: 'read' }, schema: { hide: true, querystring: NoticeQuery } },
    async (request, reply) => logosPage(request, reply, { notice: noticeFrom(NOTICES, request.query.notice) }),
  );

  const admitUpload = async (request: FastifyRequest, reply: FastifyReply) => {
    refuseDeclaredOver(request, reply, LOGO_MAX_UPLOAD_BYTES, logoTooLarge);
    await takeBurstSlot(options, { accountId: request.account!.id, plan: request.account!.plan }, 'logo uploads');
  };

  app.post(
    '/logos',
    {
      config: { access: 'designs.manage', audit: ['logo.created'] },
      bodyLimit: LOGO_MAX_UPLOAD_BYTES,
      schema: { hide: true, querystring: UploadQuery },
      onRequest: admitUpload,
      preHandler: app.requireCsrf,
    },
    async (request, reply) => {
      const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim() as LogoMediaType;
      try {
        if (!Buffer.isBuffer(request.body))
          throw new ApiError('unsupported_media_type', 'choose a PNG, JPEG or WebP file');
        const owner = { accountId: request.account!.id, plan: request.account!.plan };
        const logo = await uploadLogo(options, owner, request.body, mediaType, request.query.name?.trim());
        const created = { type: 'logo' as const, id: logo.id };
        await app.audit(request, {
          accountId: owner.accountId,
          action: 'logo.created',
          target: created,
          changes: { mediaType, name: logo.name },
        });
        return reply.code(201).send({ id: logo.id });
      } catch (error) {
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        return reply.code(error.status).send({ error: error.message });
      }
    },
  );

  // A logo never changes under its id: its thumbnail is made once, kept here, and cached by the browser for good.
  const thumbnails = new LRUCache<string, Uint8Array>({ max: 512 });
  app.get(
    '/logos/:id/thumbnail',
    { config: { access: 'read' }, schema: { hide: true, params: LogoParams, querystring: ThumbnailQuery } },
    async (request, reply) => {
      const stored = await options.logos.get(request.account!.id, request.params.id);
      if (!stored) throw new ApiError('not_found', 'no logo with this id in your account');
      const etag = `"${stored.digest}"`;
      reply.header('Cache-Control', 'private, max-age=31536000, immutable').header('ETag', etag);
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      let png = thumbnails.get(stored.digest);
      if (!png) {
        png = await options.normaliser.thumbnail(stored.png, THUMBNAIL_SIDE);
        thumbnails.set(stored.digest, png);
      }
      return reply.type('image/png').send(Buffer.from(png.buffer, png.byteOffset, png.byteLength));
    },
  );

  app.post(
    '/logos/:id/rename',
    {
      config: { access: 'designs.manage', audit: ['logo.renamed'] },
      schema: { hide: true, params: LogoParams, body: RenameForm },
      preHandler: app.requireCsrf,
    },
    async (request, reply) => {
      const name = LogoName.safeParse(request.body.name);
      if (!name.success) {
        return logosPage(
          request,
          reply,
          { error: `A logo's name is 1 to ${LOGO_NAME_MAX} characters, not blank, without control characters.` },
          400,
        );
      }
      const logo = await renameLogo(options, request.account!.id, request.params.id, name.data.trim());
      const target = { type: 'logo' as const, id: logo.id };
      await app.audit(request, {
        accountId: request.account!.id,
        action: 'logo.renamed',
        target,
        changes: { name: logo.name },
      });
      return reply.redirect(`${base}/logos?notice=renamed`, 303);
    },
  );

  app.post(
    '/logos/:id/delete',
    {
      config: { access: 'designs.manage', audit: ['logo.deleted'] },
      schema: { hide: true, params: LogoParams },
      preHandler: app.requireCsrf,
    },
    async (request, reply) => {
      await deleteLogo(options, request.account!.id, request.params.id);
      await app.audit(request, {
        accountId: request.account!.id,
        action: 'logo.deleted',
        target: { type: 'logo', id: request.params.id },
      });
      return reply.redirect(`${base}/logos?notice=deleted`, 303);
    },
  );
};
