// AuditLog on SQLite: one append-only table, read newest first per account with optional filters.
import type { Actor } from '../../domain/actor.js';
import type { AuditAction, AuditChanges, AuditEntry } from '../../domain/audit.js';
import { decodeCursor, pageOfReadAhead, type Page } from '../../domain/list-page.js';
import type { AuditLog, AuditQuery, NewAuditEntry } from '../../domain/ports/audit-log.js';
import type { SqliteDatabase } from './database.js';
import { newId } from '../../domain/record-id.js';

interface AuditRow {
  id: string;
  account_id: string;
  at: number;
  actor_type: string;
  actor_id: string;
  actor_label: string;
  action: string;
  target_type: string;
  target_id: string;
  ip: string | null;
  user_agent: string | null;
  changes: string;
}

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    accountId: row.account_id,
    at: new Date(row.at),
    actor: { type: row.actor_type as Actor['type'], id: row.actor_id, label: row.actor_label },
    action: row.action as AuditAction,
    target: { type: row.target_type, id: row.target_id },
    ip: row.ip,
    userAgent: row.user_agent,
    changes: JSON.parse(row.changes) as AuditChanges,
  };
}

export class SqliteAuditLog implements AuditLog {
  readonly #db: SqliteDatabase;
  readonly #insert;
  readonly #deleteExpired;

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#insert = db.prepare<unknown[], unknown>(
      `INSERT INTO audit_log (id, account_id, at, actor_type, actor_id, actor_label, action, target_type, target_id, ip,
         user_agent, changes, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#deleteExpired = db.prepare<[number], unknown>(
      'DELETE FROM audit_log WHERE expires_at IS NOT NULL AND expires_at <= ?',
    );
  }

  async append(entry: NewAuditEntry): Promise<AuditEntry> {
    const id = newId('aud');
    this.#insert.run(
      id,
      entry.accountId,
      entry.at.getTime(),
      entry.actor.type,
      entry.actor.id,
      entry.actor.label,
      entry.action,
      entry.target.type,
      entry.target.id,
      entry.ip,
      entry.userAgent,
      JSON.stringify(entry.changes),
      entry.expiresAt?.getTime() ?? null,
    );
    const { expiresAt: _expiresAt, ...stored } = entry;
    return { id, ...stored };
  }

  async list(accountId: string, query: AuditQuery): Promise<Page<AuditEntry>> {
    const where = ['account_id = ?'];
    const params: Array<string | number> = [accountId];
    if (query.cursor !== undefined) {
      const after = decodeCursor(query.cursor);
      where.push('(at < ? OR (at = ? AND id < ?))');
      params.push(after.createdAt.getTime(), after.createdAt.getTime(), after.id);
    }
    const filters: Array<[string, string | number | undefined]> = [
      ['action = ?', query.action],
      ['actor_id = ?', query.actorId],
      ['at >= ?', query.from?.getTime()],
      ['at < ?', query.to?.getTime()],
    ];
    for (const [clause, value] of filters) {
      if (value === undefined) continue;
      where.push(clause);
      params.push(value);
    }
    // Built from fixed fragments only; every value is a bound parameter.
    const rows = this.#db
      .prepare<unknown[], AuditRow>(
        `SELECT * FROM audit_log WHERE ${where.join(' AND ')} ORDER BY at DESC, id DESC LIMIT ?`,
      )
      .all(...params, query.limit + 1);
    return pageOfReadAhead(rows.map(toEntry), query.limit, (entry) => ({ createdAt: entry.at, id: entry.id }));
  }

  async deleteExpired(now: Date): Promise<number> {
    return this.#deleteExpired.run(now.getTime()).changes;
  }
}
