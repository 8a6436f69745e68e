// Port: an account's members (who may act in it, with which role) and its pending invitations.
import type { Role } from '../roles.js';
import type { AccountIdentity } from './account-store.js';

export interface Member {
  /** `mem_…` */
  id: string;
  accountId: string;
  /** The sign-in identity this member signs in as (one identity may be a member of several accounts). */
  identity: AccountIdentity;
  /** The identity's verified e-mail address when it joined. */
  email: string;
  role: Role;
  joinedAt: Date;
}

export type NewMember = Omit<Member, 'id'>;

export interface Invitation {
  /** `inv_…` */
  id: string;
  accountId: string;
  /** Normalised (trimmed, lower case): the signed-in identity's verified e-mail must be this one to join. */
  email: string;
  role: Role;
  /** SHA-256 of the token (hex): the token itself is in the accept URL shown once and stored nowhere. */
  tokenHash: string;
  /** The member who invited (absent when an API key did). */
  invitedBy: string | undefined;
  createdAt: Date;
  expiresAt: Date;
}

export type NewInvitation = Omit<Invitation, 'id'>;

/** What a change to a member came to: the member as it is now, none such, or refused to keep an owner. */
export type MemberChange = { member: Member } | 'not_found' | 'last_owner';

/**
 * Contract (test/contracts/member-store.contract.ts):
 * - `add` is idempotent per (account, identity): adding an identity that is a member returns that member unchanged.
 * - `addFounder` adds the identity as owner only while the account has no member at all: an account made before
 *   members existed upgrades in place on its first use, and once it has members (so at least one owner) never again.
 * - an account never loses its last owner: `setRole` away from owner and `remove` of an owner answer `last_owner`
 *   and change nothing when no other owner would be left.
 * - lists are oldest first; every read and change is scoped to the account it names.
 * - `takeInvitation` removes and returns in one step: of concurrent takes of one token, at most one gets it; an
 *   expired invitation is never returned (and `listInvitations` leaves it out).
 */
export interface MemberStore {
  add(member: NewMember): Promise<Member>;
  addFounder(member: NewMember): Promise<Member | undefined>;
  list(accountId: string): Promise<Member[]>;
  find(accountId: string, id: string): Promise<Member | undefined>;
  findByIdentity(accountId: string, identity: AccountIdentity): Promise<Member | undefined>;
  /** Every account the identity is a member of, as its memberships, oldest first. */
  membershipsOf(identity: AccountIdentity): Promise<Member[]>;
  setRole(accountId: string, id: string, role: Role): Promise<MemberChange>;
  remove(accountId: string, id: string): Promise<MemberChange>;

  createInvitation(invitation: NewInvitation): Promise<Invitation>;
  listInvitations(accountId: string, now: Date): Promise<Invitation[]>;
  findInvitationByToken(tokenHash: string, now: Date): Promise<Invitation | undefined>;
  takeInvitation(tokenHash: string, now: Date): Promise<Invitation | undefined>;
  /** Removes a pending invitation; returns it, or undefined when the account has none by that id. */
  withdrawInvitation(accountId: string, id: string): Promise<Invitation | undefined>;
}
