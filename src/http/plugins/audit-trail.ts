// Decorates a context with `audit(request, event)`, and requires each of its state-changing routes to say what it
// appends.
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { Actor } from '../../domain/actor.js';
import { AUDIT_ACTIONS, type AuditAction } from '../../domain/audit.js';
import { appendAudit, type AuditDeps, type AuditEvent } from '../../services/audit-log.js';

/**
 * What a state-changing route declares: the actions it appends on success, or `{ exempt }` saying why it changes
 * nothing the audit log records (a render, a preview, a sign-in).
 */
export type RouteAudit = readonly AuditAction[] | { exempt: string };

declare module 'fastify' {
  interface FastifyInstance {
    audit(request: FastifyRequest, event: AuditEvent): Promise<void>;
    /**
     * Every state-changing route of the API and the portal with what it declared (what the audit-coverage test walks).
     */
    auditedRoutes: AuditedRoute[];
  }
  interface FastifyContextConfig {
    /** Required on every POST, PUT, PATCH and DELETE route of a context with the audit trail (checked when added). */
    audit?: RouteAudit;
  }
}

export interface AuditedRoute {
  method: string;
  url: string;
  audit: RouteAudit;
}

export interface AuditTrailOptions {
  deps: AuditDeps;
  /** Who is acting on this request: the API key, or the signed-in member. */
  actorOf(request: FastifyRequest): Actor;
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function isRouteAudit(value: unknown): value is RouteAudit {
  if (Array.isArray(value))
    return value.length > 0 && value.every((action) => (AUDIT_ACTIONS as readonly unknown[]).includes(action));
  const exempt = (value as { exempt?: unknown } | undefined)?.exempt;
  return typeof exempt === 'string' && exempt.length > 0;
}

/**
 * onRoute: a state-changing route that does not declare its audit cannot be added, so none appends nothing by omission.
 */
export function requireDeclaredAudit(table: AuditedRoute[]) {
  return function (route: RouteOptions): void {
    const methods = [route.method].flat().filter((method) => STATE_CHANGING.has(method));
    if (methods.length === 0) return;
    const audit = (route.config as { audit?: unknown } | undefined)?.audit;
    if (!isRouteAudit(audit)) {
      throw new Error(
        `${methods.join(',')} ${route.url} changes state: it must declare config.audit (the actions it ` +
          `appends, or { exempt: why })`,
      );
    }
    for (const method of methods) table.push({ method, url: route.url, audit });
  };
}

async function auditTrail(app: FastifyInstance, options: AuditTrailOptions): Promise<void> {
  app.decorate('audit', async (request: FastifyRequest, event: AuditEvent) => {
    const userAgent = request.headers['user-agent'];
    // request.ip is the caller's own address (TRUST_PROXY decides which hop names it): the actor's, never a scan's.
    await appendAudit(
      options.deps,
      { actor: options.actorOf(request), ip: request.ip ?? null, userAgent: userAgent ?? null },
      event,
    );
  });
  app.addHook('onRoute', requireDeclaredAudit(app.auditedRoutes));
}

export default fp(auditTrail, { name: 'audit-trail' });
