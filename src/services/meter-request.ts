// Use case: meter a call that makes no code (a decode) as one request — burst, then the monthly requests — with its
// quota state.
import { ApiError } from '../domain/errors.js';
import { periodOf } from '../domain/period.js';
import { biggerPlanHint, type PlanCatalogue } from '../domain/plan-catalogue.js';
import type { RequestReservation, UsageMeter } from '../domain/ports/usage-meter.js';
import { quotaState, type QuotaState } from '../domain/quota.js';
import { burstKeyOf, type BurstCaller } from './burst.js';

export interface MeterRequestDeps {
  meter: Pick<UsageMeter, 'reserveRequest' | 'refundRequest'>;
  plans: PlanCatalogue;
  clock: () => Date;
}

export interface MeteredRequest {
  reservation: RequestReservation;
  /** For the quota headers of the answer. */
  quota: QuotaState;
}

/** Counts one request (no QR) or throws 429 rate_limited / quota_exceeded with the quota state (nothing counted). */
export async function meterRequest(deps: MeterRequestDeps, caller: BurstCaller, what: string): Promise<MeteredRequest> {
  const plan = deps.plans.get(caller.plan);
  const now = deps.clock();
  const outcome = await deps.meter.reserveRequest({
    accountId: caller.accountId,
    period: periodOf(now),
    limits: { requests: plan.requestsPerMonth },
    at: now,
    ...(plan.burstPerSecond === null
      ? {}
      : { burst: { accountId: caller.accountId, key: burstKeyOf(caller), perSecond: plan.burstPerSecond } }),
  });
  const quota = quotaState(plan, outcome.usage, now, outcome.burst);
  if (outcome.ok) return { reservation: outcome.reservation, quota };
  if (outcome.reason === 'rate_limited')
    throw new ApiError(
      'rate_limited',
      `the ${plan.name} plan allows ${plan.burstPerSecond} calls a second per API key, ${what} included; slow ` +
        `down and retry in a second (nothing was counted)`,
      { retryAfterSeconds: 1, quota, extensions: { limit: plan.burstPerSecond } },
    );
  throw new ApiError(
    'quota_exceeded',
    `the ${plan.name} plan allows ${plan.requestsPerMonth} requests a month, ${what} included; the quota ` +
      `resets at ${quota.resetAt.toISOString()}` +
      biggerPlanHint(deps.plans, plan, 'requestsPerMonth'),
    { retryAfterSeconds: quota.secondsToReset, quota },
  );
}
