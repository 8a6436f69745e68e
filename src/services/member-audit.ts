// The audit events of members and invitations, one shape for the API and the portal: the target and a summary, never a
// token.
import type { AuditAction, AuditChanges } from '../domain/audit.js';
import type { Invitation, Member } from '../domain/ports/member-store.js';
import type { AuditEvent } from './audit-log.js';

export function memberEvent(accountId: string, action: AuditAction, member: Member, changes: AuditChanges): AuditEvent {
  return { accountId, action, target: { type: 'member', id: member.id }, changes };
}

/** An invitation's event names whom it is for and the role offered; its token and digest never appear. */
export function invitationEvent(accountId: string, action: AuditAction, invitation: Invitation): AuditEvent {
  const changes = { email: invitation.email, role: invitation.role, expiresAt: invitation.expiresAt.toISOString() };
  return { accountId, action, target: { type: 'invitation', id: invitation.id }, changes };
}
