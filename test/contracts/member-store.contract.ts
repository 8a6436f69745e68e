// Contract suite for the MemberStore port: every adapter runs these same cases.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AccountIdentity, AccountStore } from '../../src/domain/ports/account-store.js';
import type { MemberStore, NewInvitation, NewMember } from '../../src/domain/ports/member-store.js';
import type { Role } from '../../src/domain/roles.js';

interface Stores {
  accounts: AccountStore;
  members: MemberStore;
}

export function memberStoreContract(adapterName: string, makeStores: () => Promise<Stores>): void {
  describe(`MemberStore contract: ${adapterName}`, () => {
    const identity = (): AccountIdentity => ({ provider: 'local', subject: `m-${randomUUID()}@example.com` });

    async function setup(on?: Stores) {
      const stores = on ?? (await makeStores());
      const founder = identity();
      const account = await stores.accounts.create({
        email: founder.subject,
        plan: 'free',
        identity: founder,
        createdAt: new Date(),
      });
      const member = (who: AccountIdentity, role: Role, at = 1_000): NewMember => ({
        accountId: account.id,
        identity: who,
        email: who.subject,
        role,
        joinedAt: new Date(at),
      });
      return { ...stores, account, founder, member };
    }

    it(
      'adds a member once per identity and finds it by ' + 'id, by identity and among the identity’s ' + 'memberships',
      async () => {
        const { members, account, member } = await setup();
        const who = identity();
        const added = await members.add(member(who, 'viewer'));
        expect(added).toEqual({ id: expect.stringMatching(/^mem_/), ...member(who, 'viewer') });
        expect(await members.add(member(who, 'admin', 2_000))).toEqual(added);
        expect(await members.find(account.id, added.id)).toEqual(added);
        expect(await members.findByIdentity(account.id, who)).toEqual(added);
        expect(await members.membershipsOf(who)).toEqual([added]);
        expect(await members.list(account.id)).toEqual([added]);
      },
    );

    it('lists an identity’s memberships across accounts, and each account’s members only, oldest first', async () => {
      const first = await setup();
      const second = await setup(first);
      const who = identity();
      const inSecond = await second.members.add(second.member(who, 'developer', 1_000));
      const inFirst = await first.members.add(first.member(who, 'viewer', 2_000));
      const other = await first.members.add(first.member(identity(), 'admin', 3_000));
      expect(await first.members.membershipsOf(who)).toEqual([inSecond, inFirst]);
      expect(await first.members.list(first.account.id)).toEqual([inFirst, other]);
      expect(await first.members.find(second.account.id, inFirst.id)).toBeUndefined();
    });

    it('adds the founder as owner only while the account has no member at all', async () => {
      const { members, account, founder, member } = await setup();
      const owner = await members.addFounder(member(founder, 'owner'));
      expect(owner).toEqual({ id: expect.stringMatching(/^mem_/), ...member(founder, 'owner') });
      expect(await members.addFounder(member(founder, 'owner'))).toBeUndefined();
      const successor = await members.add(member(identity(), 'owner', 2_000));
      expect(await members.remove(account.id, owner!.id)).toEqual({ member: owner });
      // Handed over: the founder does not come back by signing in again.
      expect(await members.addFounder(member(founder, 'owner'))).toBeUndefined();
      expect(await members.list(account.id)).toEqual([successor]);
    });

    it('never takes the last owner away, by demotion or removal, and changes others', async () => {
      const { members, account, founder, member } = await setup();
      const owner = (await members.addFounder(member(founder, 'owner')))!;
      expect(await members.setRole(account.id, owner.id, 'admin')).toBe('last_owner');
      expect(await members.remove(account.id, owner.id)).toBe('last_owner');
      expect(await members.setRole(account.id, owner.id, 'owner')).toEqual({ member: owner });
      const viewer = await members.add(member(identity(), 'viewer', 2_000));
      expect(await members.setRole(account.id, viewer.id, 'owner')).toEqual({ member: { ...viewer, role: 'owner' } });
      expect(await members.setRole(account.id, owner.id, 'billing')).toEqual({ member: { ...owner, role: 'billing' } });
      expect(await members.remove(account.id, viewer.id)).toBe('last_owner');
      expect(await members.remove(account.id, owner.id)).toEqual({ member: { ...owner, role: 'billing' } });
      expect(await members.remove(account.id, owner.id)).toBe('not_found');
      expect(await members.setRole(account.id, `mem_${randomUUID()}`, 'viewer')).toBe('not_found');
    });

    it('of two owners demoting each other at once, one stays an owner', async () => {
      const { members, account, founder, member } = await setup();
      const a = (await members.addFounder(member(founder, 'owner')))!;
      const b = await members.add(member(identity(), 'owner', 2_000));
      const outcomes = await Promise.all([
        members.setRole(account.id, a.id, 'viewer'),
        members.setRole(account.id, b.id, 'viewer'),
      ]);
      expect(outcomes.filter((o) => o === 'last_owner').length).toBeGreaterThanOrEqual(1);
      expect((await members.list(account.id)).filter((m) => m.role === 'owner').length).toBeGreaterThanOrEqual(1);
    });

    it('keeps invitations until taken once, withdrawn or expired, each account its own', async () => {
      const first = await setup();
      const { members, account } = first;
      const other = await setup(first);
      const invitation = (tokenHash: string, expiresAt = new Date(10_000)): NewInvitation => ({
        accountId: account.id,
        email: 'invitee@example.com',
        role: 'viewer',
        tokenHash,
        invitedBy: 'mem_x',
        createdAt: new Date(1_000),
        expiresAt,
      });
      const kept = await members.createInvitation(invitation(randomUUID()));
      expect(kept).toEqual({ id: expect.stringMatching(/^inv_/), ...invitation(kept.tokenHash) });
      const expired = await members.createInvitation(invitation(randomUUID(), new Date(5_000)));
      const now = new Date(6_000);
      expect(await members.listInvitations(account.id, now)).toEqual([kept]);
      expect(await members.listInvitations(other.account.id, now)).toEqual([]);
      expect(await members.findInvitationByToken(kept.tokenHash, now)).toEqual(kept);
      expect(await members.findInvitationByToken(expired.tokenHash, now)).toBeUndefined();
      expect(await members.takeInvitation(expired.tokenHash, now)).toBeUndefined();
      const takes = await Promise.all([
        members.takeInvitation(kept.tokenHash, now),
        members.takeInvitation(kept.tokenHash, now),
      ]);
      expect(takes.filter((t) => t !== undefined)).toEqual([kept]);
      expect(await members.findInvitationByToken(kept.tokenHash, now)).toBeUndefined();

      const withdrawn = await members.createInvitation(invitation(randomUUID()));
      expect(await members.withdrawInvitation(other.account.id, withdrawn.id)).toBeUndefined();
      expect(await members.withdrawInvitation(account.id, withdrawn.id)).toEqual(withdrawn);
      expect(await members.withdrawInvitation(account.id, withdrawn.id)).toBeUndefined();
      expect(await members.takeInvitation(withdrawn.tokenHash, now)).toBeUndefined();
    });
  });
}
