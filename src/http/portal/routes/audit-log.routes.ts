// The Audit log page (owners and admins): the account's entries newest first, filtered, a page at a time, and as CSV.
import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AUDIT_ACTIONS } from '../../../domain/audit.js';
import type { AuditQuery } from '../../../domain/ports/audit-log.js';
import { auditCsvLines, listAudit, type AuditDeps } from '../../../services/audit-log.js';
import { renderPage } from '../page.js';

export interface AuditLogRoutesOptions extends Pick<AuditDeps, 'auditLog'> {
  base: string;
}

const PAGE = 50;
/** `<input type=datetime-local>`: minutes, or seconds, without a zone (the form says UTC). */
const LOCAL_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?$/;
const Instant = z
  .union([z.literal(''), z.string().regex(LOCAL_INSTANT, 'a date and time, as 2027-01-31T09:00')])
  .optional();
const Filters = z.object({
  action: z.union([z.literal(''), z.enum(AUDIT_ACTIONS)]).optional(),
  actor: z.string().max(200).optional(),
  from: Instant,
  to: Instant,
});
const PageQuery = Filters.extend({ cursor: z.string().max(500).optional() });

type FilterValues = z.infer<typeof Filters>;

/** The form's filters as the store's query: empty fields filter nothing; instants are read as UTC. */
function queryOf(filters: FilterValues): Omit<AuditQuery, 'limit' | 'cursor'> {
  const instant = (value: string | undefined) =>
    value ? new Date(`${value.length === 16 ? `${value}:00` : value}Z`) : undefined;
  return {
    action: filters.action || undefined,
    actorId: filters.actor?.trim() || undefined,
    from: instant(filters.from),
    to: instant(filters.to),
  };
}

/** The filters as a query string (empty ones left out), for the next page's and the CSV's links. */
function searchOf(filters: FilterValues, extra: Record<string, string> = {}): string {
  const pairs = Object.entries({ ...filters, ...extra }).filter(
    (pair): pair is [string, string] => typeof pair[1] === 'string' && pair[1] !== '',
  );
  return pairs.length === 0 ? '' : `?${new URLSearchParams(pairs).toString()}`;
}

export const auditLogRoutes: FastifyPluginAsyncZod<AuditLogRoutesOptions> = async (app, options) => {
  const { base } = options;

  app.get(
    '/audit-log',
    { config: { access: 'audit.read' }, schema: { hide: true, querystring: PageQuery } },
    async (request, reply) => {
      const { cursor, ...filters } = request.query;
      const page = await listAudit(options, request.account!.id, { ...queryOf(filters), limit: PAGE, cursor });
      return renderPage(request, reply, 'audit-log', {
        title: 'Audit log',
        nav: 'audit',
        entries: page.items,
        filters,
        actions: AUDIT_ACTIONS,
        nextUrl: page.nextCursor ? `${base}/audit-log${searchOf(filters, { cursor: page.nextCursor })}` : undefined,
        csvUrl: `${base}/audit-log.csv${searchOf(filters)}`,
      });
    },
  );

  app.get(
    '/audit-log.csv',
    { config: { access: 'audit.read' }, schema: { hide: true, querystring: Filters } },
    async (request, reply) => {
      const lines = auditCsvLines(options, request.account!.id, queryOf(request.query));
      return reply
        .header('Cache-Control', 'no-store')
        .type('text/csv; charset=utf-8')
        .header('Content-Disposition', 'attachment; filename="audit-log.csv"')
        .send(Readable.from(lines));
    },
  );
};
