// Use cases for the plan catalogue: the start-up check that every account's plan exists, and the listing `qrm plans`
// prints.
import type { Plan, PlanCatalogue, PlanId } from '../domain/plan-catalogue.js';
import type { AccountStore } from '../domain/ports/account-store.js';

/** Accounts sit on a plan the catalogue does not define: the process must not serve them with guessed limits. */
export class OrphanedPlanError extends Error {
  override name = 'OrphanedPlanError';
}

/**
 * Checked once at start: an account on a plan the catalogue lacks (a plan removed from the file)
 * stops start-up with a message naming the source, the plan and the field, never a 500 later.
 */
export async function assertAccountsOnKnownPlans(
  plans: PlanCatalogue,
  accounts: Pick<AccountStore, 'countByPlan'>,
  source: string,
): Promise<void> {
  const counts = await accounts.countByPlan();
  const missing = [...counts].filter(([plan]) => !plans.has(plan));
  if (missing.length === 0) return;
  const named = missing
    .map(([plan, count]) => `plan "${plan.slice(0, 32)}" (${count} account${count === 1 ? '' : 's'})`)
    .join(', ');
  throw new OrphanedPlanError(
    `${source}: plans: does not define ${named}; add the plan back, or move its accounts first with \`qrm ` +
      `accounts plan\` (the plans it defines: ${plans.plans.map((p) => p.id).join(', ')})`,
  );
}

export interface PlanListing extends Plan {
  accounts: number;
  isDefault: boolean;
}

/** Every plan of the catalogue with how many accounts are on it. */
export async function listPlans(
  plans: PlanCatalogue,
  accounts: Pick<AccountStore, 'countByPlan'>,
): Promise<PlanListing[]> {
  const counts: Map<PlanId, number> = await accounts.countByPlan();
  return plans.plans.map((plan) => ({
    ...plan,
    accounts: counts.get(plan.id) ?? 0,
    isDefault: plan.id === plans.defaultPlan.id,
  }));
}
