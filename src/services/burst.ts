// Use case: one slot of the caller's per-second burst for a call that is not a single generation (a batch post, a logo
// upload).
import { ApiError } from '../domain/errors.js';
import type { PlanCatalogue, PlanId } from '../domain/plan-catalogue.js';
import type { UsageMeter } from '../domain/ports/usage-meter.js';

export interface BurstDeps {
  meter: Pick<UsageMeter, 'admitBurst'>;
  plans: PlanCatalogue;
  clock: () => Date;
}

/**
 * An API key's credential, or the portal's signed-in account (no key: one bucket per account, as the playground has).
 */
export interface BurstCaller {
  accountId: string;
  plan: PlanId;
  keyId?: string | undefined;
  /** A bucket of its own (signed URLs: one per account, whichever signing key signed them). */
  burstKey?: string | undefined;
}

export function burstKeyOf(caller: BurstCaller): string {
  return caller.burstKey ?? caller.keyId ?? `playground.${caller.accountId}`;
}

/** Takes the slot or throws 429 rate_limited (nothing counted); a plan without a burst limit keeps no window. */
export async function takeBurstSlot(deps: BurstDeps, caller: BurstCaller, what: string): Promise<void> {
  const plan = deps.plans.get(caller.plan);
  if (plan.burstPerSecond === null) return;
  const outcome = await deps.meter.admitBurst(
    { accountId: caller.accountId, key: burstKeyOf(caller), perSecond: plan.burstPerSecond },
    deps.clock(),
  );
  if (outcome.ok) return;
  throw new ApiError(
    'rate_limited',
    `the ${plan.name} plan allows ${plan.burstPerSecond} calls a second per API key, ${what} included; slow ` +
      `down and retry in a second (nothing was counted)`,
    { retryAfterSeconds: 1, extensions: { limit: plan.burstPerSecond } },
  );
}
