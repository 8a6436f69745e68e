// Quota headers: IETF RateLimit / RateLimit-Policy (structured fields: monthly, monthly-qrs, burst) plus the familiar
// X-RateLimit-*; unlimited dimensions have no entry.
import type { FastifyReply } from 'fastify';
import type { QuotaState } from '../domain/quota.js';

export function setQuotaHeaders(reply: FastifyReply, quota: QuotaState): void {
  const t = quota.secondsToReset;
  const w = quota.windowSeconds;
  const policy: string[] = [];
  const left: string[] = [];
  if (quota.requestLimit !== null) {
    policy.push(`"monthly";q=${quota.requestLimit};w=${w}`);
    left.push(`"monthly";r=${quota.requestsRemaining};t=${t}`);
  }
  if (quota.qrLimit !== null) {
    policy.push(`"monthly-qrs";q=${quota.qrLimit};w=${w}`);
    left.push(`"monthly-qrs";r=${quota.qrsRemaining};t=${t}`);
  }
  // The burst window slides, so a slot frees within a second at most: t=1 (and Retry-After: 1 on its 429).
  if (quota.burst) {
    policy.push(`"burst";q=${quota.burst.limit};w=1`);
    left.push(`"burst";r=${quota.burst.remaining};t=1`);
  }
  if (policy.length > 0) {
    reply.header('RateLimit-Policy', policy.join(', '));
    reply.header('RateLimit', left.join(', '));
  }
  // The X-RateLimit-* trio stays monthly: clients read it as "requests left this period" (none when that is unlimited).
  if (quota.requestLimit !== null) {
    reply.header('X-RateLimit-Limit', String(quota.requestLimit));
    reply.header('X-RateLimit-Remaining', String(quota.requestsRemaining));
    reply.header('X-RateLimit-Reset', String(Math.floor(quota.resetAt.getTime() / 1000)));
  }
}
