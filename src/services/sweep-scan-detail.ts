// Job processor: scan detail older than the owner's plan keeps (`scanRetentionDays`) is reduced to its daily totals.
import { dayOf } from '../domain/scan.js';
import type { PlanCatalogue } from '../domain/plan-catalogue.js';
import type { AccountStore } from '../domain/ports/account-store.js';
import type { DynamicCodeStore } from '../domain/ports/dynamic-code-store.js';
import type { ScanLedger } from '../domain/ports/scan-ledger.js';

export interface SweepScanDetailDeps {
  codes: Pick<DynamicCodeStore, 'codesById'>;
  accounts: Pick<AccountStore, 'findById'>;
  scanLedger: Pick<ScanLedger, 'keepTotalsBefore'>;
  plans: PlanCatalogue;
  clock: () => Date;
}

const DAY_MS = 86_400_000;

/**
 * One pass over every code, a page at a time (one store read and one ledger write per page, so no step holds the
 * event loop long): each code's days older than its account's plan allows lose their detail. A code whose account is
 * gone or whose plan keeps detail for good is left alone. Answers how many days were reduced, and whether the pass
 * reached the last code (a pass cut short by `maxPages` starts again from the first on its next run).
 */
export async function sweepScanDetail(
  deps: SweepScanDetailDeps,
  options: { pageSize?: number; maxPages?: number } = {},
): Promise<{ reduced: number; done: boolean }> {
  const pageSize = options.pageSize ?? 500;
  const today = Date.parse(`${dayOf(deps.clock())}T00:00:00Z`);
  const keptDays = new Map<string, number | null>();
  const keptDaysOf = async (accountId: string): Promise<number | null> => {
    if (!keptDays.has(accountId)) {
      const account = await deps.accounts.findById(accountId);
      const plan = account && deps.plans.plans.find((candidate) => candidate.id === account.plan);
      keptDays.set(accountId, plan?.scanRetentionDays ?? null);
    }
    return keptDays.get(accountId)!;
  };
  let reduced = 0;
  let after: string | undefined;
  for (let page = 0; page < (options.maxPages ?? 10_000); page++) {
    const codes = await deps.codes.codesById(after, pageSize);
    if (codes.length === 0) return { reduced, done: true };
    after = codes.at(-1)!.id;
    const byCutoff = new Map<string, string[]>();
    for (const code of codes) {
      const days = await keptDaysOf(code.accountId);
      if (days === null) continue;
      // Today and the `days - 1` before it keep their detail.
      const cutoff = dayOf(new Date(today - (days - 1) * DAY_MS));
      byCutoff.set(cutoff, [...(byCutoff.get(cutoff) ?? []), code.id]);
    }
    for (const [cutoff, codeIds] of byCutoff) reduced += await deps.scanLedger.keepTotalsBefore(codeIds, cutoff);
    if (codes.length < pageSize) return { reduced, done: true };
  }
  return { reduced, done: false };
}
