// /api/v1/QRManager/audit-log: who changed what in the account, as JSON pages or a streamed CSV (read-only: no route
// edits an entry).
import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AUDIT_ACTIONS, type AuditEntry } from '../../../domain/audit.js';
import { PAGE_SIZE } from '../../../domain/list-page.js';
import { auditCsvLines, listAudit, type AuditDeps } from '../../../services/audit-log.js';
import { COMMON_ERRORS, problemResponses } from '../../openapi/problem.schema.js';
import { callerOf } from './api-key-auth.js';
import { ActorSchema } from './keys.route.js';
import { PageQueryFields, pageSchema } from './list-page.js';
import { keyWithScope } from './route-scope.js';

const Filters = {
  action: z.enum(AUDIT_ACTIONS).optional().describe('Only this action.'),
  actor: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("Only this actor's entries: a member's id, a key's id (`key_…`), `qrm`, or `stripe`."),
  from: z.iso.datetime({ offset: true }).optional().describe('Entries at or after this instant (ISO 8601).'),
  to: z.iso.datetime({ offset: true }).optional().describe('Entries before this instant (ISO 8601).'),
};

const AuditEntrySchema = z
  .object({
    id: z.string(),
    at: z.string().describe('ISO 8601.'),
    actor: ActorSchema,
    action: z.enum(AUDIT_ACTIONS),
    target: z.object({ type: z.string(), id: z.string() }),
    ip: z
      .string()
      .nullable()
      .describe("The actor's own address (a member's browser or a key's caller), never a scanner's."),
    userAgent: z.string().nullable(),
    changes: z.record(z.string(), z.unknown()).describe('A summary of the change; never a secret.'),
  })
  .meta({ id: 'AuditEntry' });

function view(entry: AuditEntry): z.infer<typeof AuditEntrySchema> {
  const { accountId: _accountId, at, ...rest } = entry;
  return { ...rest, at: at.toISOString() };
}

function filtersOf(query: {
  action?: AuditEntry['action'] | undefined;
  actor?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}) {
  return {
    action: query.action,
    actorId: query.actor,
    from: query.from === undefined ? undefined : new Date(query.from),
    to: query.to === undefined ? undefined : new Date(query.to),
  };
}

const AUTH_ERRORS = ['missing_api_key', 'invalid_api_key', 'expired_api_key', 'insufficient_scope'] as const;
const tags = ['audit log'];

export const auditLogRoute: FastifyPluginAsyncZod<Pick<AuditDeps, 'auditLog'>> = async (app, deps) => {
  app.get(
    '/QRManager/audit-log',
    {
      schema: {
        operationId: 'listAuditLog',
        summary: "The account's audit log, newest first, filtered by action, actor and time",
        tags,
        security: keyWithScope('admin'),
        querystring: z.strictObject({ ...PageQueryFields, ...Filters }),
        response: {
          200: pageSchema(AuditEntrySchema),
          ...problemResponses(['invalid_request', ...AUTH_ERRORS, ...COMMON_ERRORS]),
        },
      },
    },
    async (request) => {
      const { limit, cursor, ...filters } = request.query;
      const page = await listAudit(deps, callerOf(request).accountId, {
        limit: limit ?? PAGE_SIZE.default,
        cursor,
        ...filtersOf(filters),
      });
      return { items: page.items.map(view), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/QRManager/audit-log.csv',
    {
      schema: {
        operationId: 'auditLogCsv',
        summary: "The account's audit log as CSV (the same filters), streamed",
        description:
          'Columns: `at,action,actor_type,actor_id,actor_label,target_type,target_id,ip,user_agent,changes` ' +
          "(CRLF line ends); cells that a spreadsheet would read as a formula start with `'`.",
        tags,
        security: keyWithScope('admin'),
        querystring: z.strictObject(Filters),
        response: problemResponses(['invalid_request', ...AUTH_ERRORS, ...COMMON_ERRORS]),
        'x-document': {
          responses: {
            '200': {
              description: 'The CSV.',
              content: { 'text/csv': { schema: { type: 'string' } } },
              headers: {
                'Content-Disposition': {
                  description: '`attachment; filename="audit-log.csv"`.',
                  required: true,
                  schema: { type: 'string' },
                },
              },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const lines = auditCsvLines(deps, callerOf(request).accountId, filtersOf(request.query));
      return reply
        .type('text/csv; charset=utf-8')
        .header('Content-Disposition', 'attachment; filename="audit-log.csv"')
        .send(Readable.from(lines));
    },
  );
};
