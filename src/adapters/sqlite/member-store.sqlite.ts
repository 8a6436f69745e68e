// MemberStore on SQLite: the last-owner rule checked and written in one immediate transaction.
import type { AccountIdentity, IdentityProvider } from '../../domain/ports/account-store.js';
import type * as port from '../../domain/ports/member-store.js';
import type { Role } from '../../domain/roles.js';
import type { OwnFields } from '../record-fields.js';
import type { SqliteDatabase } from './database.js';
import { newId } from '../../domain/record-id.js';

/** A members row read under the record's field names; the times are epoch milliseconds. */
interface MemberRow {
  id: string;
  accountId: string;
  provider: IdentityProvider;
  subject: string;
  email: string;
  role: Role;
  joinedAt: number;
}

const MEMBER_READ =
  'id, account_id AS accountId, identity_provider AS provider, identity_subject AS subject, email, role, ' +
  'joined_at AS joinedAt';

/** An invitations row read under the record's field names; the times are epoch milliseconds. */
interface InvitationRow {
  id: string;
  accountId: string;
  email: string;
  role: Role;
  tokenHash: string;
  invitedBy: string | null;
  createdAt: number;
  expiresAt: number;
}

const INVITATION_READ =
  'id, account_id AS accountId, email, role, token_hash AS tokenHash, invited_by AS invitedBy, ' +
  'created_at AS createdAt, expires_at AS expiresAt';

function toMember({ provider, subject, joinedAt, ...fields }: MemberRow): port.Member {
  return {
    ...(fields satisfies OwnFields<port.Member, typeof fields>),
    identity: { provider, subject },
    joinedAt: new Date(joinedAt),
  };
}

function toInvitation({ invitedBy, createdAt, expiresAt, ...fields }: InvitationRow): port.Invitation {
  return {
    ...(fields satisfies OwnFields<port.Invitation, typeof fields>),
    invitedBy: invitedBy ?? undefined,
    createdAt: new Date(createdAt),
    expiresAt: new Date(expiresAt),
  };
}

type MemberValues = [string, string, string, string, string, string, number];

export class SqliteMemberStore implements port.MemberStore {
  readonly #db: SqliteDatabase;
  readonly #insert;
  readonly #insertFounder;
  readonly #byIdentity;
  readonly #list;
  readonly #get;
  readonly #memberships;
  readonly #owners;
  readonly #setRole;
  readonly #remove;
  readonly #insertInvitation;
  readonly #invitations;
  readonly #invitationByToken;
  readonly #takeInvitation;
  readonly #withdraw;

  constructor(db: SqliteDatabase) {
    this.#db = db;
    const columns = 'id, account_id, identity_provider, identity_subject, email, role, joined_at';
    this.#insert = db.prepare<MemberValues, MemberRow>(
      `INSERT INTO members (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING ${MEMBER_READ}`,
    );
    // One statement: the founder is added only while the account has no member at all.
    this.#insertFounder = db.prepare<[...MemberValues, string], MemberRow>(
      `INSERT INTO members (${columns}) SELECT ?, ?, ?, ?, ?, ?, ?
       WHERE NOT EXISTS (SELECT 1 FROM members WHERE account_id = ?)
       ON CONFLICT DO NOTHING RETURNING ${MEMBER_READ}`,
    );
    this.#byIdentity = db.prepare<[string, string, string], MemberRow>(
      `SELECT ${MEMBER_READ} FROM members WHERE account_id = ? AND identity_provider = ? AND identity_subject = ?`,
    );
    this.#list = db.prepare<[string], MemberRow>(
      `SELECT ${MEMBER_READ} FROM members WHERE account_id = ? ORDER BY joined_at, id`,
    );
    this.#get = db.prepare<[string, string], MemberRow>(
      `SELECT ${MEMBER_READ} FROM members WHERE account_id = ? AND id = ?`,
    );
    this.#memberships = db.prepare<[string, string], MemberRow>(
      `SELECT ${MEMBER_READ} FROM members WHERE identity_provider = ? AND identity_subject = ? ORDER BY joined_at, id`,
    );
    this.#owners = db.prepare<[string], { n: number }>(
      "SELECT count(*) AS n FROM members WHERE account_id = ? AND role = 'owner'",
    );
    this.#setRole = db.prepare<[string, string, string], MemberRow>(
      `UPDATE members SET role = ? WHERE account_id = ? AND id = ? RETURNING ${MEMBER_READ}`,
    );
    this.#remove = db.prepare<[string, string], MemberRow>(
      `DELETE FROM members WHERE account_id = ? AND id = ? RETURNING ${MEMBER_READ}`,
    );
    this.#insertInvitation = db.prepare<
      [string, string, string, string, string, string | null, number, number],
      InvitationRow
    >(
      `INSERT INTO invitations (id, account_id, email, role, token_hash, invited_by, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${INVITATION_READ}`,
    );
    this.#invitations = db.prepare<[string, number], InvitationRow>(
      `SELECT ${INVITATION_READ} FROM invitations WHERE account_id = ? AND expires_at > ? ORDER BY created_at, id`,
    );
    this.#invitationByToken = db.prepare<[string, number], InvitationRow>(
      `SELECT ${INVITATION_READ} FROM invitations WHERE token_hash = ? AND expires_at > ?`,
    );
    this.#takeInvitation = db.prepare<[string], InvitationRow>(
      `DELETE FROM invitations WHERE token_hash = ? RETURNING ${INVITATION_READ}`,
    );
    this.#withdraw = db.prepare<[string, string], InvitationRow>(
      `DELETE FROM invitations WHERE account_id = ? AND id = ? RETURNING ${INVITATION_READ}`,
    );
  }

  #values(member: port.NewMember): MemberValues {
    const { accountId, identity, email, role, joinedAt } = member;
    return [newId('mem'), accountId, identity.provider, identity.subject, email, role, joinedAt.getTime()];
  }

  #existing(member: port.NewMember): port.Member {
    return toMember(this.#byIdentity.get(member.accountId, member.identity.provider, member.identity.subject)!);
  }

  async add(member: port.NewMember): Promise<port.Member> {
    const row = this.#insert.get(...this.#values(member));
    return row ? toMember(row) : this.#existing(member);
  }

  async addFounder(member: port.NewMember): Promise<port.Member | undefined> {
    const row = this.#insertFounder.get(...this.#values(member), member.accountId);
    return row && toMember(row);
  }

  async list(accountId: string): Promise<port.Member[]> {
    return this.#list.all(accountId).map(toMember);
  }

  async find(accountId: string, id: string): Promise<port.Member | undefined> {
    const row = this.#get.get(accountId, id);
    return row && toMember(row);
  }

  async findByIdentity(accountId: string, identity: AccountIdentity): Promise<port.Member | undefined> {
    const row = this.#byIdentity.get(accountId, identity.provider, identity.subject);
    return row && toMember(row);
  }

  async membershipsOf(identity: AccountIdentity): Promise<port.Member[]> {
    return this.#memberships.all(identity.provider, identity.subject).map(toMember);
  }

  async setRole(accountId: string, id: string, role: Role): Promise<port.MemberChange> {
    return this.#keepingAnOwner(accountId, id, role === 'owner', () => this.#setRole.get(role, accountId, id)!);
  }

  async remove(accountId: string, id: string): Promise<port.MemberChange> {
    return this.#keepingAnOwner(accountId, id, false, () => this.#remove.get(accountId, id)!);
  }

  /** Applies the change unless it takes the account's last owner away, in one transaction. */
  #keepingAnOwner(accountId: string, id: string, staysOwner: boolean, change: () => MemberRow): port.MemberChange {
    return this.#db
      .transaction((): port.MemberChange => {
        const current = this.#get.get(accountId, id);
        if (!current) return 'not_found';
        if (current.role === 'owner' && !staysOwner && this.#owners.get(accountId)!.n <= 1) return 'last_owner';
        return { member: toMember(change()) };
      })
      .immediate();
  }

  async createInvitation(invitation: port.NewInvitation): Promise<port.Invitation> {
    const { accountId, email, role, tokenHash, invitedBy, createdAt, expiresAt } = invitation;
    const row = this.#insertInvitation.get(
      newId('inv'),
      accountId,
      email,
      role,
      tokenHash,
      invitedBy ?? null,
      createdAt.getTime(),
      expiresAt.getTime(),
    );
    return toInvitation(row!);
  }

  async listInvitations(accountId: string, now: Date): Promise<port.Invitation[]> {
    return this.#invitations.all(accountId, now.getTime()).map(toInvitation);
  }

  async findInvitationByToken(tokenHash: string, now: Date): Promise<port.Invitation | undefined> {
    const row = this.#invitationByToken.get(tokenHash, now.getTime());
    return row && toInvitation(row);
  }

  async takeInvitation(tokenHash: string, now: Date): Promise<port.Invitation | undefined> {
    const row = this.#takeInvitation.get(tokenHash);
    return row && row.expiresAt > now.getTime() ? toInvitation(row) : undefined;
  }

  async withdrawInvitation(accountId: string, id: string): Promise<port.Invitation | undefined> {
    const row = this.#withdraw.get(accountId, id);
    return row && toInvitation(row);
  }
}
