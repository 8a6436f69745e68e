// Signed URLs page: the account's signing keys (create, with the secret shown once and a signed example; revoke).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../../domain/errors.js';
import type { AccountStore } from '../../../domain/ports/account-store.js';
import type { DesignStore } from '../../../domain/ports/design-store.js';
import { MAX_ACTIVE_SIGNING_KEYS, SIGNING_KEY_NAME_MAX, signedImagePath } from '../../../domain/signed-url.js';
import { createSigningKey, revokeSigningKey, type SigningKeyDeps } from '../../../services/signing-keys.js';
import { noticeFrom, NoticeQuery } from '../notices.js';
import { accountPage } from '../page.js';

export interface SigningRoutesOptions extends SigningKeyDeps {
  base: string;
  accounts: AccountStore;
  /** The account's saved designs are listed here too: a design's id is what a signed URL names. */
  designs: Pick<DesignStore, 'list'>;
}

const NOTICES = {
  revoked:
    'The signing key was revoked. URLs it signed are refused from now on (copies cached by browsers and CDNs live ' +
    'out their max-age).',
} as const;
const CreateForm = z.object({ name: z.string().max(1000).optional(), _csrf: z.string().optional() });
const KeyParams = z.object({ id: z.string().min(1).max(100) });

export const signingRoutes: FastifyPluginAsyncZod<SigningRoutesOptions> = async (app, options) => {
  const { base } = options;

  const page = accountPage('signing', async (request) => {
    const keys = await options.signingKeys.list(request.account!.id);
    const designs = await options.designs.list(request.account!.id);
    const activeCount = keys.filter((key) => !key.revokedAt).length;
    return {
      title: 'Signed URLs',
      nav: 'signing',
      keys,
      designs,
      activeCount,
      maxKeys: MAX_ACTIVE_SIGNING_KEYS,
      limitReached: activeCount >= MAX_ACTIVE_SIGNING_KEYS,
      nameMaxLength: SIGNING_KEY_NAME_MAX,
    };
  });

  app.get(
    '/signing',
    { config: { access: 'read' }, schema: { hide: true, querystring: NoticeQuery } },
    async (request, reply) => page(request, reply, { notice: noticeFrom(NOTICES, request.query.notice) }),
  );

  app.post(
    '/signing',
    {
      config: { access: 'signing-keys.manage', audit: ['signing_key.created'] },
      schema: { hide: true, body: CreateForm },
      preHandler: app.requireCsrf,
    },
    async (request, reply) => {
      try {
        const { key, secret } = await createSigningKey(options, request.account!.id, request.body.name || undefined);
        const target = { type: 'signing_key', id: key.id };
        await app.audit(request, {
          accountId: request.account!.id,
          action: 'signing_key.created',
          target,
          changes: { name: key.name },
        });
        const examplePath = signedImagePath(key.id, secret, 'png', { type: 'url', content: 'https://example.com' });
        const example = `${request.protocol}://${request.host}${examplePath}`;
        // Shown in this response and nowhere else: the secret is stored sealed and never displayed again.
        return await page(request, reply, { created: { key, secret, example } }, 201);
      } catch (error) {
        if (!(error instanceof ApiError) || (error.code !== 'key_limit_reached' && error.code !== 'invalid_request'))
          throw error;
        return page(request, reply, { error: error.message, name: request.body.name }, error.status);
      }
    },
  );

  app.post(
    '/signing/:id/revoke',
    {
      config: { access: 'signing-keys.manage', audit: ['signing_key.revoked'] },
      schema: { hide: true, params: KeyParams },
      preHandler: app.requireCsrf,
    },
    async (request, reply) => {
      const key = await revokeSigningKey(options, request.account!.id, request.params.id);
      await app.audit(request, {
        accountId: request.account!.id,
        action: 'signing_key.revoked',
        target: { type: 'signing_key', id: key.id },
      });
      return reply.redirect(`${base}/signing?notice=revoked`, 303);
    },
  );
};
