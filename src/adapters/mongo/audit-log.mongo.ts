// AuditLog on MongoDB: one append-only collection, sharded and read by account, newest first.
import type { Model } from 'mongoose';
import type { Actor } from '../../domain/actor.js';
import type { AuditAction, AuditChanges, AuditEntry } from '../../domain/audit.js';
import { decodeCursor, pageOfReadAhead, type Page } from '../../domain/list-page.js';
import type { AuditLog, AuditQuery, NewAuditEntry } from '../../domain/ports/audit-log.js';
import { newId } from '../../domain/record-id.js';
import type { AuditEntryDoc } from './models.js';

function toEntry(doc: AuditEntryDoc): AuditEntry {
  return {
    id: doc._id,
    accountId: doc.accountId,
    at: doc.at,
    actor: { type: doc.actor.type as Actor['type'], id: doc.actor.id, label: doc.actor.label },
    action: doc.action as AuditAction,
    target: { type: doc.target.type, id: doc.target.id },
    ip: doc.ip,
    userAgent: doc.userAgent,
    changes: doc.changes as AuditChanges,
  };
}

export class MongoAuditLog implements AuditLog {
  readonly #entries: Model<AuditEntryDoc>;

  constructor(entries: Model<AuditEntryDoc>) {
    this.#entries = entries;
  }

  async append(entry: NewAuditEntry): Promise<AuditEntry> {
    const { expiresAt, ...stored } = entry;
    const id = newId('aud');
    await this.#entries.create({ _id: id, ...stored, changes: { ...stored.changes }, expiresAt: expiresAt ?? null });
    return { id, ...stored };
  }

  async list(accountId: string, query: AuditQuery): Promise<Page<AuditEntry>> {
    const filter: Record<string, unknown> = { accountId };
    const at: Record<string, Date> = {};
    if (query.from !== undefined) at.$gte = query.from;
    if (query.to !== undefined) at.$lt = query.to;
    if (Object.keys(at).length > 0) filter.at = at;
    if (query.action !== undefined) filter.action = query.action;
    if (query.actorId !== undefined) filter['actor.id'] = query.actorId;
    if (query.cursor !== undefined) {
      const after = decodeCursor(query.cursor);
      filter.$or = [{ at: { $lt: after.createdAt } }, { at: after.createdAt, _id: { $lt: after.id } }];
    }
    const docs = await this.#entries
      .find(filter)
      .sort({ at: -1, _id: -1 })
      .limit(query.limit + 1)
      .lean<AuditEntryDoc[]>();
    return pageOfReadAhead(docs.map(toEntry), query.limit, (entry) => ({ createdAt: entry.at, id: entry.id }));
  }

  async deleteExpired(now: Date): Promise<number> {
    const result = await this.#entries.deleteMany({ expiresAt: { $ne: null, $lte: now } });
    return result.deletedCount;
  }
}
