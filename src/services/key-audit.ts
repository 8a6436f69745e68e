// The audit events of an API key, one shape for the API, the portal and qrm: its hint and settings, never its secret.
import type { ApiKeyRecord } from '../domain/ports/key-store.js';
import type { AuditEvent } from './audit-log.js';

/** A new key: its name, hint, scopes and expiry, as the key list shows them. */
export function keyCreatedEvent(key: ApiKeyRecord): AuditEvent {
  return {
    accountId: key.accountId,
    action: 'api_key.created',
    target: { type: 'api_key', id: key.id },
    changes: { name: key.name, hint: key.hint, scopes: key.scopes, expiresAt: key.expiresAt?.toISOString() ?? null },
  };
}

/** A key revoked by hand: its hint names it (a member's removal or new role revokes with its own, member-audit.ts). */
export function keyRevokedEvent(key: ApiKeyRecord): AuditEvent {
  return {
    accountId: key.accountId,
    action: 'api_key.revoked',
    target: { type: 'api_key', id: key.id },
    changes: { hint: key.hint },
  };
}
