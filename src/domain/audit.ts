// The audit log's entry: who changed what in an account, when, from where — and a summary of the change that holds no
// secret.
import type { Actor } from './actor.js';

/** Every action an entry may name; `*.created` and friends are appended by the use case that made the change. */
export const AUDIT_ACTIONS = [
  'invitation.created',
  'invitation.withdrawn',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'api_key.created',
  'api_key.revoked',
  'signing_key.created',
  'signing_key.revoked',
  'plan.changed',
  'settings.changed',
  'code.created',
  'code.updated',
  'code.deleted',
  'code.stats_erased',
  'domain.created',
  'domain.verified',
  'domain.deleted',
  'webhook.created',
  'webhook.deleted',
  'webhook.secret_rotated',
  'design.created',
  'design.updated',
  'design.deleted',
  'logo.created',
  'logo.deleted',
  'logo.renamed',
  'batch.created',
  'batch.cancelled',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** A change summary: field → its new value, as short plain values. */
export type AuditChanges = Record<string, string | number | boolean | null | string[]>;

export interface AuditTarget {
  /** `api_key`, `code`, `domain`, `member`…: what kind of thing changed. */
  type: string;
  id: string;
}

/** Who acted and from where: the actor's own address and user agent (a member's or a key's call, never a scan). */
export interface AuditContext {
  actor: Actor;
  ip: string | null;
  userAgent: string | null;
}

export interface AuditEntry extends AuditContext {
  id: string;
  accountId: string;
  at: Date;
  action: AuditAction;
  target: AuditTarget;
  changes: AuditChanges;
}

/** Names a change summary may never carry, whatever the caller passes: secrets, tokens, hashes, passwords. */
const SECRET_FIELD = /secret|password|token|hash|apikey|api_key|sealed|signature|cookie|session/i;
/** What a secret of this service looks like, wherever it turns up in a value. */
const SECRET_VALUE = /qrm_live_[0-9A-Za-z]{6,}|qrs_[0-9A-Za-z_-]{6,}|whsec_[0-9A-Za-z+/=_-]{6,}/;
const MAX_TEXT = 500;

/**
 * The summary as stored: fields named like a secret are dropped, values that look like one are replaced by
 * `[redacted]`, and long text is cut. A use case cannot store a secret through it by mistake.
 */
export function safeChanges(changes: AuditChanges): AuditChanges {
  const clean = (value: string) =>
    SECRET_VALUE.test(value) ? '[redacted]' : value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}…` : value;
  const out: AuditChanges = {};
  for (const [field, value] of Object.entries(changes)) {
    if (SECRET_FIELD.test(field)) continue;
    out[field] =
      typeof value === 'string' ? clean(value) : Array.isArray(value) ? value.slice(0, 50).map(clean) : value;
  }
  return out;
}
