// Use cases for an account's members: who is acting (and with which role), listing, changing a role, removing.
import { ApiError } from '../domain/errors.js';
import type { Account, AccountIdentity, AccountStore } from '../domain/ports/account-store.js';
import type { Member, MemberChange, MemberStore } from '../domain/ports/member-store.js';
import type { ApiKeyRecord } from '../domain/ports/key-store.js';
import { revokeKeysBeyondMaker, type ApiKeyDeps } from './api-keys.js';
import { permissionToChangeMember, roleAllows, roleNeededFor, type Permission, type Role } from '../domain/roles.js';

export interface MemberDeps {
  members: MemberStore;
  clock: () => Date;
}

/** Who acts on an account: a member (portal), or an API key of the account. */
export type Actor = { type: 'member'; member: Member } | { type: 'api_key'; keyId: string };

/**
 * The role an API key acts with on members and invitations: an admin's (never an owner's), so a key cannot make,
 * demote or remove owners; owners do that in the portal.
 */
export const API_KEY_ROLE: Role = 'admin';

export function roleOf(actor: Actor): Role {
  return actor.type === 'member' ? actor.member.role : API_KEY_ROLE;
}

function sameIdentity(a: AccountIdentity, b: AccountIdentity): boolean {
  return a.provider === b.provider && a.subject === b.subject;
}

/**
 * The identity's membership of the account. An account that has no member at all (made before members existed, or
 * just now) gets its own identity as its owner here: existing accounts upgrade in place on first use.
 */
export async function membershipIn(
  deps: Pick<MemberDeps, 'members'>,
  account: Account,
  identity: AccountIdentity,
  email: string,
): Promise<Member | undefined> {
  const found = await deps.members.findByIdentity(account.id, identity);
  if (found || !sameIdentity(account.identity, identity)) return found;
  const founder = { accountId: account.id, identity, email, role: 'owner' as const, joinedAt: account.createdAt };
  return (await deps.members.addFounder(founder)) ?? (await deps.members.findByIdentity(account.id, identity));
}

/** Throws 403 insufficient_role naming the least trusted role that holds the permission. */
export function assertAllowed(role: Role, permission: Permission): void {
  if (roleAllows(role, permission)) return;
  const needed = roleNeededFor(permission);
  throw new ApiError(
    'insufficient_role',
    `your role (${role}) does not allow this; it needs the ${needed} role or one above it`,
    {
      extensions: { requiredRole: needed, role },
    },
  );
}

/** The account's members, oldest first; an account that never had one lists its own identity as its owner. */
export async function listMembers(
  deps: Pick<MemberDeps, 'members'> & { accounts: AccountStore },
  accountId: string,
): Promise<Member[]> {
  const account = await deps.accounts.findById(accountId);
  if (account) await membershipIn(deps, account, account.identity, account.email);
  return deps.members.list(accountId);
}

function outcome(change: MemberChange): Member {
  if (change === 'not_found') throw new ApiError('not_found', 'no such member in this account');
  if (change === 'last_owner') {
    throw new ApiError('last_owner', 'the account must keep at least one owner: make another member an owner first');
  }
  return change.member;
}

async function memberToChange(deps: MemberDeps, accountId: string, id: string): Promise<Member> {
  const member = await deps.members.find(accountId, id);
  if (!member) throw new ApiError('not_found', 'no such member in this account');
  return member;
}

/** A member changed or removed, and the keys it made that the change revoked. */
export interface MemberOutcome {
  member: Member;
  revokedKeys: ApiKeyRecord[];
}

/** Changes a member's role; the keys it made holding a scope the new role lacks are revoked. */
export async function changeRole(
  deps: MemberDeps & ApiKeyDeps,
  actor: Actor,
  accountId: string,
  id: string,
  role: Role,
): Promise<MemberOutcome> {
  const current = await memberToChange(deps, accountId, id);
  assertAllowed(roleOf(actor), permissionToChangeMember(current.role, role));
  const member = outcome(await deps.members.setRole(accountId, id, role));
  return { member, revokedKeys: await revokeKeysBeyondMaker(deps, accountId, id, { role }) };
}

/**
 * Removes a member, and revokes every key it made; a member may always leave (remove itself), but never as the last
 * owner.
 */
export async function removeMember(
  deps: MemberDeps & ApiKeyDeps,
  actor: Actor,
  accountId: string,
  id: string,
): Promise<MemberOutcome> {
  const current = await memberToChange(deps, accountId, id);
  const leaving = actor.type === 'member' && actor.member.id === id;
  if (!leaving) assertAllowed(roleOf(actor), permissionToChangeMember(current.role, undefined));
  const member = outcome(await deps.members.remove(accountId, id));
  return { member, revokedKeys: await revokeKeysBeyondMaker(deps, accountId, id, { removed: true }) };
}
