// Quota headers: IETF RateLimit / RateLimit-Policy (structured fields) plus the familiar X-RateLimit-*.
import type { FastifyReply } from 'fastify';
import type { QuotaState } from '../domain/quota.js';

export function setQuotaHeaders(reply: FastifyReply, quota: QuotaState): void {
  const t = quota.secondsToReset;
  reply.header('RateLimit-Policy', `"monthly";q=${quota.requestLimit};w=${quota.windowSeconds}, "monthly-qrs";q=${quota.qrLimit};w=${quota.windowSeconds}`);
  reply.header('RateLimit', `"monthly";r=${quota.requestsRemaining};t=${t}, "monthly-qrs";r=${quota.qrsRemaining};t=${t}`);
  reply.header('X-RateLimit-Limit', String(quota.requestLimit));
  reply.header('X-RateLimit-Remaining', String(quota.requestsRemaining));
  reply.header('X-RateLimit-Reset', String(Math.floor(quota.resetAt.getTime() / 1000)));
}
