// Quota state as the API reports it: what the plan allows, what is left, and when it resets.
import type { Plan } from './plan-catalogue.js';
import { periodEnd, periodStart } from './period.js';
import type { Usage } from './ports/usage-meter.js';

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
}

export function quotaState(plan: Plan, usage: Usage, now: Date): QuotaState {
  const resetAt = periodEnd(now);
  return {
    requestLimit: plan.requestsPerMonth,
    requestsRemaining: Math.max(0, plan.requestsPerMonth - usage.requests),
    qrLimit: plan.qrsPerMonth,
    qrsRemaining: Math.max(0, plan.qrsPerMonth - usage.qrs),
    resetAt,
    windowSeconds: Math.round((resetAt.getTime() - periodStart(now).getTime()) / 1000),
    secondsToReset: Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000)),
  };
}
