// Decorates a context with `audit(request, event)`: appends the event with the request's actor, address and user agent.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Actor } from '../../domain/actor.js';
import { appendAudit, type AuditDeps, type AuditEvent } from '../../services/audit-log.js';

declare module 'fastify' {
  interface FastifyInstance {
    audit(request: FastifyRequest, event: AuditEvent): Promise<void>;
  }
}

export interface AuditTrailOptions {
  deps: AuditDeps;
  /** Who is acting on this request: the API key, or the signed-in member. */
  actorOf(request: FastifyRequest): Actor;
}

async function auditTrail(app: FastifyInstance, options: AuditTrailOptions): Promise<void> {
  app.decorate('audit', async (request: FastifyRequest, event: AuditEvent) => {
    const userAgent = request.headers['user-agent'];
    // request.ip is the caller's own address (TRUST_PROXY decides which hop names it): the actor's, never a scan's.
    await appendAudit(options.deps, { actor: options.actorOf(request), ip: request.ip ?? null, userAgent: userAgent ?? null }, event);
  });
}

export default fp(auditTrail, { name: 'audit-trail' });
