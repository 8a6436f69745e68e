// Use cases of the audit log: append an entry (the one way every state change is recorded), read it, sweep it.
import {
  safeChanges,
  type AuditAction,
  type AuditChanges,
  type AuditContext,
  type AuditEntry,
  type AuditTarget,
} from '../domain/audit.js';
import { csvCell } from '../domain/csv-cell.js';
import type { Page } from '../domain/list-page.js';
import type { PlanCatalogue, PlanId } from '../domain/plan-catalogue.js';
import type { AccountStore } from '../domain/ports/account-store.js';
import type { AuditLog, AuditQuery } from '../domain/ports/audit-log.js';

export interface AuditDeps {
  auditLog: AuditLog;
  accounts: Pick<AccountStore, 'findById'>;
  plans: PlanCatalogue;
  clock: () => Date;
}

const DAY_MS = 86_400_000;

/** What a use case says happened; the appender adds the time, the retention and the secret filter. */
export interface AuditEvent {
  accountId: string;
  /** The account's plan when the caller knows it (an API key's credential does); otherwise it is read. */
  plan?: PlanId;
  action: AuditAction;
  target: AuditTarget;
  changes?: AuditChanges;
}

/** Appends one entry, kept for the plan's `auditLogDays` from now. The change summary goes through `safeChanges`. */
export async function appendAudit(deps: AuditDeps, context: AuditContext, event: AuditEvent): Promise<AuditEntry> {
  const at = deps.clock();
  const planId = event.plan ?? (await deps.accounts.findById(event.accountId))?.plan;
  const plan = planId !== undefined && deps.plans.has(planId) ? deps.plans.get(planId) : deps.plans.defaultPlan;
  const days = plan.auditLogDays;
  return deps.auditLog.append({
    accountId: event.accountId,
    at,
    actor: context.actor,
    ip: context.ip,
    userAgent: context.userAgent === null ? null : context.userAgent.slice(0, 512),
    action: event.action,
    target: event.target,
    changes: safeChanges(event.changes ?? {}),
    expiresAt: days === null ? undefined : new Date(at.getTime() + days * DAY_MS),
  });
}

export async function listAudit(
  deps: Pick<AuditDeps, 'auditLog'>,
  accountId: string,
  query: AuditQuery,
): Promise<Page<AuditEntry>> {
  return deps.auditLog.list(accountId, query);
}

/** The retention job: drops the entries past their plan's `auditLogDays`. */
export async function sweepAuditLog(deps: {
  auditLog: Pick<AuditLog, 'deleteExpired'>;
  clock: () => Date;
}): Promise<number> {
  return deps.auditLog.deleteExpired(deps.clock());
}

export const AUDIT_CSV_HEADER = 'at,action,actor_type,actor_id,actor_label,target_type,target_id,ip,user_agent,changes';

/** The entries matching `query` as CSV lines (header first), read a page at a time so memory stays bounded. */
export async function* auditCsvLines(
  deps: Pick<AuditDeps, 'auditLog'>,
  accountId: string,
  query: Omit<AuditQuery, 'limit' | 'cursor'>,
) {
  yield `${AUDIT_CSV_HEADER}\r\n`;
  let cursor: string | undefined;
  do {
    const page = await deps.auditLog.list(accountId, { ...query, limit: 100, cursor });
    for (const e of page.items) {
      const cells = [
        e.at.toISOString(),
        e.action,
        e.actor.type,
        e.actor.id,
        e.actor.label,
        e.target.type,
        e.target.id,
        e.ip ?? '',
        e.userAgent ?? '',
      ];
      yield `${[...cells, JSON.stringify(e.changes)].map(csvCell).join(',')}\r\n`;
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
}
