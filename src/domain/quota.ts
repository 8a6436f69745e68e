// Quota state as the API reports it: what the plan allows, what is left, and when it resets (monthly, and the
// per-second burst).
import type { Limit, Plan } from './plan-catalogue.js';
import { periodEnd, periodStart } from './period.js';
import type { BurstUsage, Usage } from './ports/usage-meter.js';

export interface QuotaState {
  /** null: the plan has no monthly request limit (and `requestsRemaining` is null too). */
  requestLimit: Limit;
  requestsRemaining: number | null;
  qrLimit: Limit;
  qrsRemaining: number | null;
  /** When the period ends and both counters start again. */
  resetAt: Date;
  /** Length of the current period in seconds (calendar months differ). */
  windowSeconds: number;
  /** Seconds from now to resetAt. */
  secondsToReset: number;
  /**
   * The per-key ceiling over the last second, when the request went through the burst check (never for an unlimited
   * burst).
   */
  burst?: { limit: number; remaining: number };
}

function remaining(limit: Limit, used: number): number | null {
  return limit === null ? null : Math.max(0, limit - used);
}

export function quotaState(plan: Plan, usage: Usage, now: Date, burst?: BurstUsage): QuotaState {
  const resetAt = periodEnd(now);
  const burstLimit = plan.burstPerSecond;
  // The optional part is spread last: spread first, V8 builds the object on a slow path, on every request.
  return {
    requestLimit: plan.requestsPerMonth,
    requestsRemaining: remaining(plan.requestsPerMonth, usage.requests),
    qrLimit: plan.qrsPerMonth,
    qrsRemaining: remaining(plan.qrsPerMonth, usage.qrs),
    resetAt,
    windowSeconds: Math.round((resetAt.getTime() - periodStart(now).getTime()) / 1000),
    secondsToReset: Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000)),
    ...(burst && burstLimit !== null
      ? { burst: { limit: burstLimit, remaining: Math.max(0, burstLimit - burst.used) } }
      : {}),
  };
}
