// /api/v1/QRManager/logos: upload a logo as the raw image body (its name in the query), list, rename and delete logos.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../../domain/errors.js';
import { LOGO_MAX_UPLOAD_BYTES, LOGO_MEDIA_TYPES, type LogoMediaType } from '../../../domain/ports/logo-normaliser.js';
import { DEFAULT_LOGO_NAME, LOGO_NAME_MAX, type LogoRecord } from '../../../domain/ports/logo-store.js';
import { takeBurstSlot } from '../../../services/burst.js';
import { deleteLogo, listLogos, renameLogo, uploadLogo, type LogoDeps } from '../../../services/logos.js';
import { label } from './label.js';
import { binaryContent, header } from '../../openapi/operation-doc.js';
import { refuseDeclaredOver } from '../../body-cap.js';
import { COMMON_ERRORS, problemResponses } from '../../openapi/problem.schema.js';
import { callerOf } from './api-key-auth.js';
import { pageOf } from '../../../domain/list-page.js';
import { PageQuery, pageSchema } from './list-page.js';
import { keyWithScope } from './route-scope.js';

const Logo = z
  .object({
    id: z.string(),
    name: z.string().describe('What the logo is called (the portal shows it instead of the id).'),
    mediaType: z.literal('image/png').describe('Every logo is stored re-encoded as PNG, metadata stripped.'),
    width: z.number().int(),
    height: z.number().int(),
    bytes: z.number().int().describe('Size of the stored PNG.'),
    createdAt: z.string().describe('ISO 8601.'),
  })
  .meta({ id: 'Logo' });

function logoView(logo: LogoRecord): z.infer<typeof Logo> {
  return {
    id: logo.id,
    name: logo.name,
    mediaType: logo.mediaType,
    width: logo.width,
    height: logo.height,
    bytes: logo.bytes,
    createdAt: logo.createdAt.toISOString(),
  };
}

/** A logo's name: what the portal's pickers show. */
export const LogoName = label(LOGO_NAME_MAX, 1)
  .refine((name) => name.trim().length > 0, 'must not be blank')
  .describe(`At most ${LOGO_NAME_MAX} characters, no control characters.`);
const UploadQuery = z.strictObject({
  name: LogoName.optional().describe(`The logo's name (default "${DEFAULT_LOGO_NAME}"); the body is the image itself.`),
});
const Params = z.object({ id: z.string().min(1).max(64) });

const AUTH_ERRORS = ['missing_api_key', 'invalid_api_key', 'expired_api_key', 'insufficient_scope'] as const;

export function logoTooLarge(bytes: number): ApiError {
  return new ApiError(
    'payload_too_large',
    `a logo upload is at most ${LOGO_MAX_UPLOAD_BYTES} bytes; this one is ${bytes} bytes or more`,
    {
      extensions: { limitBytes: LOGO_MAX_UPLOAD_BYTES },
    },
  );
}

function mediaTypeOf(header: string | undefined): LogoMediaType {
  const type = (header ?? '').split(';')[0]!.trim().toLowerCase();
  if ((LOGO_MEDIA_TYPES as readonly string[]).includes(type)) return type as LogoMediaType;
  if (type === 'image/svg+xml') {
    // Refused rather than sanitised: an SVG can carry script, event handlers and external references, and a safe subset
    // is a parser of its own.
    throw new ApiError(
      'unsupported_media_type',
      'SVG logos are refused (an SVG can carry scripts and external references); upload the logo as PNG, JPEG or WebP',
    );
  }
  throw new ApiError(
    'unsupported_media_type',
    `send the logo image itself as the body with Content-Type ${LOGO_MEDIA_TYPES.join(', ')}`,
  );
}

export const logosRoute: FastifyPluginAsyncZod<LogoDeps> = async (app, deps) => {
  // In this route's own context only: any body arrives as bytes, and the handler says which types it takes.
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: LOGO_MAX_UPLOAD_BYTES }, (_request, body, done) =>
    done(null, body),
  );

  app.post(
    '/QRManager/logos',
    {
      bodyLimit: LOGO_MAX_UPLOAD_BYTES,
      // Before a byte is read: the declared size, then the key's burst (the route's bodyLimit stops a longer stream).
      preParsing: async (request, reply, payload) => {
        refuseDeclaredOver(request, reply, LOGO_MAX_UPLOAD_BYTES, logoTooLarge);
        await takeBurstSlot(deps, callerOf(request), 'logo uploads');
        return payload;
      },
      config: { audit: ['logo.created'] },
      schema: {
        operationId: 'uploadLogo',
        summary: 'Upload a logo',
        description:
          `The body is the image itself (PNG, JPEG or WebP, at most ${LOGO_MAX_UPLOAD_BYTES} bytes), with its ` +
          `Content-Type. ` +
          ('It is decoded, scaled to fit 512 px, and stored re-encoded as PNG with all metadata stripped. SVG ' +
            'is refused. ') +
          ("Each plan keeps a number of logos (the plan's `logos` figure). Use the returned id as `logo.id` " +
            'when generating.'),
        tags: ['logos'],
        security: keyWithScope('logos'),
        querystring: UploadQuery,
        response: {
          201: Logo,
          ...problemResponses([
            'invalid_request',
            'unsupported_media_type',
            'payload_too_large',
            'logo_limit_reached',
            'plan_upgrade_required',
            'rate_limited',
            ...AUTH_ERRORS,
            ...COMMON_ERRORS,
          ]),
        },
        'x-document': {
          requestBody: {
            description: 'The image itself, as sent (no JSON, no multipart).',
            content: binaryContent(LOGO_MEDIA_TYPES),
          },
          headers: { '201': { Location: header.location('The new logo.') } },
        },
      },
    },
    async (request, reply) => {
      const mediaType = mediaTypeOf(request.headers['content-type']);
      if (!Buffer.isBuffer(request.body) || request.body.length === 0)
        throw new ApiError('invalid_request', 'the body is empty; send the logo image itself');
      const logo = await uploadLogo(deps, callerOf(request), request.body, mediaType, request.query.name?.trim());
      await app.audit(request, {
        accountId: callerOf(request).accountId,
        plan: callerOf(request).plan,
        action: 'logo.created',
        target: { type: 'logo', id: logo.id },
        changes: { mediaType, name: logo.name },
      });
      return reply.code(201).header('Location', `/api/v1/QRManager/logos/${logo.id}`).send(logoView(logo));
    },
  );

  app.get(
    '/QRManager/logos',
    {
      schema: {
        operationId: 'listLogos',
        summary: "List the account's logos, newest first",
        tags: ['logos'],
        security: keyWithScope('logos'),
        querystring: PageQuery,
        response: { 200: pageSchema(Logo), ...problemResponses(['invalid_request', ...AUTH_ERRORS, ...COMMON_ERRORS]) },
      },
    },
    async (request) => {
      const page = pageOf(await listLogos(deps, callerOf(request).accountId), request.query);
      return { items: page.items.map(logoView), nextCursor: page.nextCursor };
    },
  );

  app.patch(
    '/QRManager/logos/:id',
    {
      config: { audit: ['logo.renamed'] },
      schema: {
        operationId: 'renameLogo',
        summary: 'Rename a logo',
        description: 'Changes the name only: the image, and the designs and requests naming the logo by id, stay.',
        tags: ['logos'],
        security: keyWithScope('logos'),
        params: Params,
        body: z.strictObject({ name: LogoName }),
        response: {
          200: Logo,
          ...problemResponses(['invalid_request', 'not_found', ...AUTH_ERRORS, ...COMMON_ERRORS]),
        },
      },
    },
    async (request) => {
      const logo = await renameLogo(deps, callerOf(request).accountId, request.params.id, request.body.name.trim());
      await app.audit(request, {
        accountId: callerOf(request).accountId,
        plan: callerOf(request).plan,
        action: 'logo.renamed',
        target: { type: 'logo', id: logo.id },
        changes: { name: logo.name },
      });
      return logoView(logo);
    },
  );

  app.delete(
    '/QRManager/logos/:id',
    {
      config: { audit: ['logo.deleted'] },
      schema: {
        operationId: 'deleteLogo',
        summary: 'Delete a logo',
        tags: ['logos'],
        security: keyWithScope('logos'),
        params: Params,
        response: {
          204: z.null().describe('Deleted.'),
          ...problemResponses(['not_found', ...AUTH_ERRORS, ...COMMON_ERRORS]),
        },
      },
    },
    async (request, reply) => {
      await deleteLogo(deps, callerOf(request).accountId, request.params.id);
      await app.audit(request, {
        accountId: callerOf(request).accountId,
        plan: callerOf(request).plan,
        action: 'logo.deleted',
        target: { type: 'logo', id: request.params.id },
      });
      return reply.code(204).send(null);
    },
  );
};
