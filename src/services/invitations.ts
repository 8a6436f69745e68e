// Use cases for invitations: invite by e-mail (the token shown once, in the accept URL), list, withdraw, and join.
import { createHash, randomBytes } from 'node:crypto';
import { ApiError } from '../domain/errors.js';
import type { Account, AccountStore } from '../domain/ports/account-store.js';
import type { Invitation, Member } from '../domain/ports/member-store.js';
import type { Role } from '../domain/roles.js';
import { assertEmail } from './accounts.js';
import { assertAllowed, membershipIn, roleOf, type Actor, type MemberDeps } from './members.js';

/** An invitation can be accepted for a week. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** Where an invitation's token is opened, under the portal: `<origin>/portal/invitations/<token>`. */
export const INVITATION_PATH = '/portal/invitations/';

// 32 random bytes, base64url: unguessable, so its digest is all that is stored.
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export function invitationTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export interface CreatedInvitation {
  invitation: Invitation;
  /** The only place the token appears: answered once, never stored. */
  acceptUrl: string;
}

export async function invite(
  deps: MemberDeps,
  actor: Actor,
  accountId: string,
  input: { email: string; role: Role },
  origin: string,
): Promise<CreatedInvitation> {
  assertAllowed(roleOf(actor), input.role === 'owner' ? 'owners.manage' : 'members.manage');
  const email = assertEmail(input.email);
  const token = randomBytes(32).toString('base64url');
  const now = deps.clock();
  const invitation = await deps.members.createInvitation({
    accountId,
    email,
    role: input.role,
    tokenHash: invitationTokenHash(token),
    invitedBy: actor.type === 'member' ? actor.member.id : undefined,
    createdAt: now,
    expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
  });
  return { invitation, acceptUrl: `${origin}${INVITATION_PATH}${token}` };
}

export async function listInvitations(deps: MemberDeps, accountId: string): Promise<Invitation[]> {
  return deps.members.listInvitations(accountId, deps.clock());
}

export async function withdrawInvitation(
  deps: MemberDeps,
  actor: Actor,
  accountId: string,
  id: string,
): Promise<Invitation> {
  assertAllowed(roleOf(actor), 'members.manage');
  const withdrawn = await deps.members.withdrawInvitation(accountId, id);
  if (!withdrawn) throw new ApiError('not_found', 'no pending invitation with this id in this account');
  return withdrawn;
}

const NO_INVITATION =
  'this invitation does not exist, has expired, was withdrawn or was already used; ask for a new one';

/** The pending invitation behind a token (the accept page shows it before the click). */
export async function pendingInvitation(deps: MemberDeps, token: string): Promise<Invitation> {
  const found = TOKEN_SHAPE.test(token)
    ? await deps.members.findInvitationByToken(invitationTokenHash(token), deps.clock())
    : undefined;
  if (!found) throw new ApiError('not_found', NO_INVITATION);
  return found;
}

/**
 * Joins the account an invitation is for, as the signed-in identity (its own account's e-mail: verified by its
 * provider, or typed at local sign-in on this machine). The e-mail must be the invited one; the invitation is used
 * once.
 */
export async function acceptInvitation(
  deps: MemberDeps & { accounts: AccountStore },
  token: string,
  signedIn: Account,
): Promise<{ member: Member; invitation: Invitation }> {
  const invitation = await pendingInvitation(deps, token);
  if (signedIn.email.trim().toLowerCase() !== invitation.email) {
    throw new ApiError(
      'invitation_email_mismatch',
      'this invitation was sent to another e-mail address: sign in as that address to accept it',
    );
  }
  const taken = await deps.members.takeInvitation(invitation.tokenHash, deps.clock());
  if (!taken) throw new ApiError('not_found', NO_INVITATION);
  // An account that never had members gets its founder as owner first: the first invitee never takes its place.
  const account = await deps.accounts.findById(taken.accountId);
  if (account) await membershipIn(deps, account, account.identity, account.email);
  const member = await deps.members.add({
    accountId: taken.accountId,
    identity: signedIn.identity,
    email: taken.email,
    role: taken.role,
    joinedAt: deps.clock(),
  });
  return { member, invitation: taken };
}
