// Quota state as the API reports it: what the plan allows, what is left, and when it resets (monthly, and the per-second burst).
import type { Plan } from './plan-catalogue.js';
import { periodEnd, periodStart } from './period.js';
import type { BurstUsage, Usage } from './ports/usage-meter.js';

export interface QuotaState {
  requestLimit: number;
  requestsRemaining: number;
  qrLimit: number;
  qrsRemaining: number;
  /** When the period ends and both counters start again. */
  resetAt: Date;
  /** Length of the current period in seconds (calendar months differ). */
  windowSeconds: number;
  /** Seconds from now to resetAt. */
  secondsToReset: number;
  /** The per-key ceiling over the last second, when the request went through the burst check. */
  burst?: { limit: number; remaining: number };
}

export function quotaState(plan: Plan, usage: Usage, now: Date, burst?: BurstUsage): QuotaState {
  const resetAt = periodEnd(now);
  return {
    ...(burst ? { burst: { limit: plan.burstPerSecond, remaining: Math.max(0, plan.burstPerSecond - burst.used) } } : {}),
    requestLimit: plan.requestsPerMonth,
    requestsRemaining: Math.max(0, plan.requestsPerMonth - usage.requests),
    qrLimit: plan.qrsPerMonth,
    qrsRemaining: Math.max(0, plan.qrsPerMonth - usage.qrs),
    resetAt,
    windowSeconds: Math.round((resetAt.getTime() - periodStart(now).getTime()) / 1000),
    secondsToReset: Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000)),
  };
}
