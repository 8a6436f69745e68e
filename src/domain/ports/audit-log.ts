// Port: the audit log, append-only per account (no update, no delete but the retention sweep).
import type { AuditAction, AuditEntry } from '../audit.js';
import type { Page } from '../list-page.js';

export type NewAuditEntry = Omit<AuditEntry, 'id'> & {
  /** When the retention sweep may drop the entry (the plan's `auditLogDays` at the time); undefined: kept. */
  expiresAt: Date | undefined;
};

export interface AuditQuery {
  limit: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string | undefined;
  action?: AuditAction | undefined;
  /** The actor's id (a member's id, a key's id, or `qrm`). */
  actorId?: string | undefined;
  /** Entries at or after this instant. */
  from?: Date | undefined;
  /** Entries before this instant. */
  to?: Date | undefined;
}

/**
 * Contract (test/contracts/audit-log.contract.ts):
 * - `append` stores the entry as given and returns it with its id; nothing edits an entry afterwards.
 * - `list` is the account's entries only, newest first (by `at`, then id), filtered by action, actor and time,
 *   paged by an opaque cursor: every entry appears once across the pages.
 * - `deleteExpired` removes the entries whose `expiresAt` is at or before `now` and no other; it returns how many.
 */
export interface AuditLog {
  append(entry: NewAuditEntry): Promise<AuditEntry>;
  list(accountId: string, query: AuditQuery): Promise<Page<AuditEntry>>;
  deleteExpired(now: Date): Promise<number>;
}
