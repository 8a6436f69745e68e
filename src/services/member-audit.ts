// The audit events of members and invitations, one shape for the API and the portal: the target and a summary, never a
// token.
import type { AuditAction, AuditChanges } from '../domain/audit.js';
import type { ApiKeyRecord } from '../domain/ports/key-store.js';
import type { Invitation, Member } from '../domain/ports/member-store.js';
import type { AuditEvent } from './audit-log.js';
import type { MemberOutcome } from './members.js';

export function memberEvent(accountId: string, action: AuditAction, member: Member, changes: AuditChanges): AuditEvent {
  return { accountId, action, target: { type: 'member', id: member.id }, changes };
}

/** An invitation's event names whom it is for and the role offered; its token and digest never appear. */
export function invitationEvent(accountId: string, action: AuditAction, invitation: Invitation): AuditEvent {
  const changes = { email: invitation.email, role: invitation.role, expiresAt: invitation.expiresAt.toISOString() };
  return { accountId, action, target: { type: 'invitation', id: invitation.id }, changes };
}

/** A member's new role, then one `api_key.revoked` per key of theirs the role no longer allows. */
export function roleChangedEvents(accountId: string, { member, revokedKeys }: MemberOutcome): AuditEvent[] {
  return [
    memberEvent(accountId, 'member.role_changed', member, { role: member.role }),
    ...makerKeyEvents(accountId, member, 'member.role_changed', revokedKeys),
  ];
}

/** A member removed, then one `api_key.revoked` per key they made. */
export function memberRemovedEvents(accountId: string, { member, revokedKeys }: MemberOutcome): AuditEvent[] {
  return [
    memberEvent(accountId, 'member.removed', member, { email: member.email, role: member.role }),
    ...makerKeyEvents(accountId, member, 'member.removed', revokedKeys),
  ];
}

/** One `api_key.revoked` per key a member's removal or new role revoked, naming the member and why. */
function makerKeyEvents(
  accountId: string,
  member: Member,
  reason: 'member.removed' | 'member.role_changed',
  keys: readonly ApiKeyRecord[],
): AuditEvent[] {
  return keys.map((key) => ({
    accountId,
    action: 'api_key.revoked',
    target: { type: 'api_key', id: key.id },
    changes: { hint: key.hint, reason, member: member.id, role: reason === 'member.removed' ? null : member.role },
  }));
}
