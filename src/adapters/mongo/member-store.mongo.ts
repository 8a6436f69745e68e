// MemberStore on MongoDB: the last-owner rule kept without transactions by a per-account owner count taken before
// demoting.
import type { AccountIdentity } from '../../domain/ports/account-store.js';
import type * as port from '../../domain/ports/member-store.js';
import type { Role } from '../../domain/roles.js';
import { newId } from '../../domain/record-id.js';
import type { OwnFields } from '../record-fields.js';
import { isDuplicateKey } from './connection.js';
import type { InvitationDoc, MemberDoc } from './member-models.js';
import type { MongoModels } from './models.js';

/** The documents hold the records' own fields, under `_id` for `id`. */
function toMember({ _id, provider, subject, ...fields }: MemberDoc): port.Member {
  return { id: _id, ...(fields satisfies OwnFields<port.Member, typeof fields>), identity: { provider, subject } };
}

function toInvitation({ _id, invitedBy, ...fields }: InvitationDoc): port.Invitation {
  return {
    id: _id,
    ...(fields satisfies OwnFields<port.Invitation, typeof fields>),
    invitedBy: invitedBy ?? undefined,
  };
}

function toDoc(member: port.NewMember): MemberDoc {
  const { accountId, identity, email, role, joinedAt } = member;
  return {
    _id: newId('mem'),
    accountId,
    provider: identity.provider,
    subject: identity.subject,
    email,
    role,
    joinedAt,
  };
}

/** A member changed under us between the read and the write is read again, a few times at most. */
const CHANGE_ATTEMPTS = 5;

/** The collections this store reads and writes. */
type MemberModels = Pick<MongoModels, 'members' | 'ownerCounts' | 'invitations'>;

export class MongoMemberStore implements port.MemberStore {
  readonly #models: MemberModels;

  constructor(models: MemberModels) {
    this.#models = models;
  }

  async add(member: port.NewMember): Promise<port.Member> {
    const doc = toDoc(member);
    try {
      await this.#models.members.create(doc);
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      return (await this.findByIdentity(member.accountId, member.identity))!;
    }
    if (member.role === 'owner') await this.#countOwner(member.accountId, 1);
    return toMember(doc);
  }

  async addFounder(member: port.NewMember): Promise<port.Member | undefined> {
    if (await this.#models.members.exists({ accountId: member.accountId })) return undefined;
    // The owner count is written once per account: the one writer that creates it founds the account.
    try {
      await this.#models.ownerCounts.create({ _id: member.accountId, owners: 1 });
    } catch (error) {
      if (isDuplicateKey(error)) return undefined;
      throw error;
    }
    const doc = toDoc(member);
    await this.#models.members.create(doc);
    return toMember(doc);
  }

  async list(accountId: string): Promise<port.Member[]> {
    return (await this.#models.members.find({ accountId }).sort({ joinedAt: 1, _id: 1 }).lean<MemberDoc[]>()).map(
      toMember,
    );
  }

  async find(accountId: string, id: string): Promise<port.Member | undefined> {
    const doc = await this.#models.members.findOne({ _id: id, accountId }).lean<MemberDoc>();
    return doc ? toMember(doc) : undefined;
  }

  async findByIdentity(accountId: string, identity: AccountIdentity): Promise<port.Member | undefined> {
    const doc = await this.#models.members
      .findOne({ accountId, provider: identity.provider, subject: identity.subject })
      .lean<MemberDoc>();
    return doc ? toMember(doc) : undefined;
  }

  async membershipsOf(identity: AccountIdentity): Promise<port.Member[]> {
    const docs = await this.#models.members
      .find({ provider: identity.provider, subject: identity.subject })
      .sort({ joinedAt: 1, _id: 1 })
      .lean<MemberDoc[]>();
    return docs.map(toMember);
  }

  async setRole(accountId: string, id: string, role: Role): Promise<port.MemberChange> {
    for (let attempt = 0; attempt < CHANGE_ATTEMPTS; attempt++) {
      const current = await this.find(accountId, id);
      if (!current) return 'not_found';
      if (current.role === role) return { member: current };
      const demotes = current.role === 'owner';
      if (demotes && !(await this.#releaseOwner(accountId))) return 'last_owner';
      const updated = await this.#models.members
        .findOneAndUpdate({ _id: id, accountId, role: current.role }, { $set: { role } }, { new: true })
        .lean<MemberDoc>();
      if (updated) {
        if (role === 'owner') await this.#countOwner(accountId, 1);
        return { member: toMember(updated) };
      }
      if (demotes) await this.#countOwner(accountId, 1);
    }
    throw new Error('the member kept changing; retry');
  }

  async remove(accountId: string, id: string): Promise<port.MemberChange> {
    for (let attempt = 0; attempt < CHANGE_ATTEMPTS; attempt++) {
      const current = await this.find(accountId, id);
      if (!current) return 'not_found';
      const owner = current.role === 'owner';
      if (owner && !(await this.#releaseOwner(accountId))) return 'last_owner';
      const removed = await this.#models.members
        .findOneAndDelete({ _id: id, accountId, role: current.role })
        .lean<MemberDoc>();
      if (removed) return { member: toMember(removed) };
      if (owner) await this.#countOwner(accountId, 1);
    }
    throw new Error('the member kept changing; retry');
  }

  /** Takes one owner off the count unless it is the last one: false when it is. */
  async #releaseOwner(accountId: string): Promise<boolean> {
    return (
      (await this.#models.ownerCounts
        .findOneAndUpdate({ _id: accountId, owners: { $gt: 1 } }, { $inc: { owners: -1 } })
        .lean()) !== null
    );
  }

  async #countOwner(accountId: string, delta: number): Promise<void> {
    await this.#models.ownerCounts.updateOne({ _id: accountId }, { $inc: { owners: delta } }, { upsert: true });
  }

  async createInvitation(invitation: port.NewInvitation): Promise<port.Invitation> {
    const doc: InvitationDoc = { _id: newId('inv'), ...invitation, invitedBy: invitation.invitedBy ?? null };
    await this.#models.invitations.create(doc);
    return toInvitation(doc);
  }

  async listInvitations(accountId: string, now: Date): Promise<port.Invitation[]> {
    const docs = await this.#models.invitations
      .find({ accountId, expiresAt: { $gt: now } })
      .sort({ createdAt: 1, _id: 1 })
      .lean<InvitationDoc[]>();
    return docs.map(toInvitation);
  }

  async findInvitationByToken(tokenHash: string, now: Date): Promise<port.Invitation | undefined> {
    const doc = await this.#models.invitations.findOne({ tokenHash, expiresAt: { $gt: now } }).lean<InvitationDoc>();
    return doc ? toInvitation(doc) : undefined;
  }

  async takeInvitation(tokenHash: string, now: Date): Promise<port.Invitation | undefined> {
    const doc = await this.#models.invitations.findOneAndDelete({ tokenHash }).lean<InvitationDoc>();
    return doc && doc.expiresAt > now ? toInvitation(doc) : undefined;
  }

  async withdrawInvitation(accountId: string, id: string): Promise<port.Invitation | undefined> {
    const doc = await this.#models.invitations.findOneAndDelete({ _id: id, accountId }).lean<InvitationDoc>();
    return doc ? toInvitation(doc) : undefined;
  }
}
