// Quota headers: IETF RateLimit / RateLimit-Policy (structured fields: monthly, monthly-qrs, burst) plus the familiar X-RateLimit-*.
import type { FastifyReply } from 'fastify';
import type { QuotaState } from '../domain/quota.js';

export function setQuotaHeaders(reply: FastifyReply, quota: QuotaState): void {
  const t = quota.secondsToReset;
  // The burst window slides, so a slot frees within a second at most: t=1 (and Retry-After: 1 on its 429).
  const burstPolicy = quota.burst ? `, "burst";q=${quota.burst.limit};w=1` : '';
  const burstLeft = quota.burst ? `, "burst";r=${quota.burst.remaining};t=1` : '';
  reply.header('RateLimit-Policy', `"monthly";q=${quota.requestLimit};w=${quota.windowSeconds}, "monthly-qrs";q=${quota.qrLimit};w=${quota.windowSeconds}${burstPolicy}`);
  reply.header('RateLimit', `"monthly";r=${quota.requestsRemaining};t=${t}, "monthly-qrs";r=${quota.qrsRemaining};t=${t}${burstLeft}`);
  // The X-RateLimit-* trio stays monthly: clients read it as "requests left this period".
  reply.header('X-RateLimit-Limit', String(quota.requestLimit));
  reply.header('X-RateLimit-Remaining', String(quota.requestsRemaining));
  reply.header('X-RateLimit-Reset', String(Math.floor(quota.resetAt.getTime() / 1000)));
}
