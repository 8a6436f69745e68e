// /api/v1/QRManager/designs: saved designs — create, list, read, change, delete. Each is validated and
// scannability-checked when saved.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DESIGN_NAME_MAX } from '../../../domain/design.js';
import type { DesignRecord } from '../../../domain/ports/design-store.js';
import {
  createDesign,
  deleteDesign,
  getDesign,
  listDesigns,
  updateDesign,
  type DesignDeps,
} from '../../../services/designs.js';
import { header } from '../../openapi/operation-doc.js';
import { COMMON_ERRORS, problemResponses } from '../../openapi/problem.schema.js';
import { callerOf } from './api-key-auth.js';
import { GenerateBody } from './generate.schema.js';
import { pageOf } from '../../../domain/list-page.js';
import { PageQuery, pageSchema } from './list-page.js';
import { label } from './label.js';
import { keyWithScope } from './route-scope.js';

/** The generate fields a design may fix, with the same rules. */
export const DesignOptionsSchema = GenerateBody.pick({
  size: true,
  sizeMm: true,
  dpi: true,
  margin: true,
  errorCorrection: true,
  darkColor: true,
  lightColor: true,
  moduleShape: true,
  finderShape: true,
  finderColor: true,
  logo: true,
  frame: true,
}).meta({ id: 'DesignOptions' });

const Design = z
  .object({
    id: z
      .string()
      .describe('`des_…`: send it as `design` with generate, batch items, dynamic-code images and signed URLs.'),
    name: z.string(),
    options: DesignOptionsSchema,
    createdAt: z.string().describe('ISO 8601.'),
    updatedAt: z.string().describe('ISO 8601.'),
  })
  .meta({ id: 'Design' });

function view(design: DesignRecord): z.infer<typeof Design> {
  return {
    id: design.id,
    name: design.name,
    options: design.options,
    createdAt: design.createdAt.toISOString(),
    updatedAt: design.updatedAt.toISOString(),
  };
}

const Name = label(DESIGN_NAME_MAX, 1);
const Params = z.object({ id: z.string().min(1).max(64) });
const AUTH_ERRORS = ['missing_api_key', 'invalid_api_key', 'expired_api_key', 'insufficient_scope'] as const;
const SAVE_ERRORS = [
  'invalid_request',
  'unscannable_design',
  'unsupported_media_type',
  'payload_too_large',
  ...AUTH_ERRORS,
  ...COMMON_ERRORS,
  'overloaded',
] as const;

export const designsRoute: FastifyPluginAsyncZod<DesignDeps> = async (app, deps) => {
  app.post(
    '/QRManager/designs',
    {
      config: { audit: ['design.created'] },
      schema: {
        operationId: 'createDesign',
        summary: 'Save a design',
        description:
          'A named set of rendering and branding options. It is validated as a generate request would be ' +
          '(colour contrast, the logo in your account) ' +
          ('and a branded design is drawn and read back before it is saved: an unscannable one is 422 ' +
            '`unscannable_design`. Each plan keeps a number of designs (its `designs` figure).'),
        tags: ['designs'],
        security: keyWithScope('designs'),
        body: z.strictObject({ name: Name, options: DesignOptionsSchema }),
        response: {
          201: Design,
          ...problemResponses([...SAVE_ERRORS, 'design_limit_reached', 'plan_upgrade_required']),
        },
        'x-document': { headers: { '201': { Location: header.location('The new design.') } } },
      },
    },
    async (request, reply) => {
      const design = await createDesign(deps, callerOf(request), request.body);
      await app.audit(request, {
        accountId: callerOf(request).accountId,
        plan: callerOf(request).plan,
        action: 'design.created',
        target: { type: 'design', id: design.id },
        changes: { name: design.name },
      });
      return reply.code(201).header('Location', `/api/v1/QRManager/designs/${design.id}`).send(view(design));
    },
  );

  app.get(
    '/QRManager/designs',
    {
      schema: {
        operationId: 'listDesigns',
        summary: "List the account's designs, newest first",
        tags: ['designs'],
        security: keyWithScope('designs'),
        querystring: PageQuery,
        response: {
          200: pageSchema(Design),
          ...problemResponses(['invalid_request', ...AUTH_ERRORS, ...COMMON_ERRORS]),
        },
      },
    },
    async (request) => {
      const page = pageOf(await listDesigns(deps, callerOf(request).accountId), request.query);
      return { items: page.items.map(view), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/QRManager/designs/:id',
    {
      schema: {
        operationId: 'getDesign',
        summary: 'Read a design',
        tags: ['designs'],
        security: keyWithScope('designs'),
        params: Params,
        response: { 200: Design, ...problemResponses(['not_found', ...AUTH_ERRORS, ...COMMON_ERRORS]) },
      },
    },
    async (request) => view(await getDesign(deps, callerOf(request).accountId, request.params.id)),
  );

  app.patch(
    '/QRManager/designs/:id',
    {
      config: { audit: ['design.updated'] },
      schema: {
        operationId: 'updateDesign',
        summary: 'Change a design',
        description:
          'Renames it, or replaces its options as a whole (checked as on creation). Codes drawn with it ' +
          'afterwards use the new options.',
        tags: ['designs'],
        security: keyWithScope('designs'),
        params: Params,
        body: z.strictObject({ name: Name.optional(), options: DesignOptionsSchema.optional() }),
        response: { 200: Design, ...problemResponses([...SAVE_ERRORS, 'not_found']) },
      },
    },
    async (request) => {
      const design = await updateDesign(deps, callerOf(request), request.params.id, request.body);
      await app.audit(request, {
        accountId: callerOf(request).accountId,
        plan: callerOf(request).plan,
        action: 'design.updated',
        target: { type: 'design', id: design.id },
        changes: { fields: Object.keys(request.body) },
      });
      return view(design);
    },
  );

  app.delete(
    '/QRManager/designs/:id',
    {
      config: { audit: ['design.deleted'] },
      schema: {
        operationId: 'deleteDesign',
        summary: 'Delete a design',
        tags: ['designs'],
        security: keyWithScope('designs'),
        params: Params,
        response: {
          204: z.null().describe('Deleted.'),
          ...problemResponses(['not_found', ...AUTH_ERRORS, ...COMMON_ERRORS]),
        },
      },
    },
    async (request, reply) => {
      await deleteDesign(deps, callerOf(request).accountId, request.params.id);
      await app.audit(request, {
        accountId: callerOf(request).accountId,
        plan: callerOf(request).plan,
        action: 'design.deleted',
        target: { type: 'design', id: request.params.id },
      });
      return reply.code(204).send(null);
    },
  );
};
