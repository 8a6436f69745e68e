// Use cases: upload (re-encoded, within the plan's logo count, named), list, rename and delete an account's logos.
import { createHash } from 'node:crypto';
import { ApiError } from '../domain/errors.js';
import type { PlanCatalogue, PlanId } from '../domain/plan-catalogue.js';
import type { LogoMediaType, LogoNormaliser } from '../domain/ports/logo-normaliser.js';
import { DEFAULT_LOGO_NAME, type LogoRecord, type LogoStore } from '../domain/ports/logo-store.js';
import type { UsageMeter } from '../domain/ports/usage-meter.js';

export interface LogoDeps {
  logos: LogoStore;
  /** Uploads take a slot of the key's burst, as every metered call does. */
  meter: Pick<UsageMeter, 'admitBurst'>;
  normaliser: LogoNormaliser;
  /** The configured plans: how many logos each keeps. */
  plans: PlanCatalogue;
  clock: () => Date;
}

interface Owner {
  accountId: string;
  plan: PlanId;
}

/** `name` defaults to DEFAULT_LOGO_NAME; callers validate it (LOGO_NAME_MAX, no control characters). */
export async function uploadLogo(
  deps: LogoDeps,
  owner: Owner,
  bytes: Uint8Array,
  mediaType: LogoMediaType,
  name: string = DEFAULT_LOGO_NAME,
): Promise<LogoRecord> {
  const plan = deps.plans.get(owner.plan);
  if (plan.logos === 0)
    throw new ApiError('plan_upgrade_required', `logos are not included in the ${plan.name} plan`, {
      extensions: { plan: plan.id },
    });
  // The limit before the decode: a full account must not cost a decode (the store checks again, atomically, when it
  // writes).
  if (plan.logos !== null && (await deps.logos.list(owner.accountId)).length >= plan.logos)
    throw logoLimitReached(plan.name, plan.logos);
  const logo = await deps.normaliser.normalise(bytes, mediaType);
  const digest = createHash('sha256').update(logo.png).digest('base64url');
  const created = await deps.logos.createWithinLimit(
    { accountId: owner.accountId, name, ...logo, digest, createdAt: deps.clock() },
    plan.logos,
  );
  if (created === 'limit_reached') throw logoLimitReached(plan.name, plan.logos ?? 0);
  return created;
}

function logoLimitReached(planName: string, limit: number): ApiError {
  return new ApiError(
    'logo_limit_reached',
    `the ${planName} plan keeps at most ${limit} logos; delete one to upload another`,
    {
      extensions: { limit },
    },
  );
}

export function listLogos(deps: Pick<LogoDeps, 'logos'>, accountId: string): Promise<LogoRecord[]> {
  return deps.logos.list(accountId);
}

export async function renameLogo(
  deps: Pick<LogoDeps, 'logos'>,
  accountId: string,
  id: string,
  name: string,
): Promise<LogoRecord> {
  const renamed = await deps.logos.rename(accountId, id, name);
  if (!renamed) throw new ApiError('not_found', 'no logo with this id in your account');
  return renamed;
}

export async function deleteLogo(deps: Pick<LogoDeps, 'logos'>, accountId: string, id: string): Promise<void> {
  if (!(await deps.logos.delete(accountId, id)))
    throw new ApiError('not_found', 'no logo with this id in your account');
}
