// MongoDB documents and schemas of the members, their per-account owner count and the pending invitations.
import { Schema } from 'mongoose';
import type { IdentityProvider } from '../../domain/ports/account-store.js';
import type { Role } from '../../domain/roles.js';

export interface MemberDoc {
  _id: string;
  accountId: string;
  provider: IdentityProvider;
  subject: string;
  email: string;
  role: Role;
  joinedAt: Date;
}

/** `_id` is the account id; written once when the account gets its first member (its founding marker too). */
export interface OwnerCountDoc {
  _id: string;
  owners: number;
}

export interface InvitationDoc {
  _id: string;
  accountId: string;
  email: string;
  role: Role;
  tokenHash: string;
  invitedBy: string | null;
  createdAt: Date;
  expiresAt: Date;
}

const options = { versionKey: false, strict: 'throw' } as const;

export function memberSchema(): Schema<MemberDoc> {
  const schema = new Schema<MemberDoc>(
    {
      _id: { type: String, required: true },
      accountId: { type: String, required: true },
      provider: { type: String, required: true },
      subject: { type: String, required: true },
      email: { type: String, required: true },
      role: { type: String, required: true },
      joinedAt: { type: Date, required: true },
    },
    options,
  );
  schema.index({ accountId: 1, provider: 1, subject: 1 }, { unique: true });
  schema.index({ provider: 1, subject: 1, joinedAt: 1 });
  return schema;
}

export function ownerCountSchema(): Schema<OwnerCountDoc> {
  return new Schema<OwnerCountDoc>(
    { _id: { type: String, required: true }, owners: { type: Number, required: true } },
    options,
  );
}

export function invitationSchema(): Schema<InvitationDoc> {
  const schema = new Schema<InvitationDoc>(
    {
      _id: { type: String, required: true },
      accountId: { type: String, required: true },
      email: { type: String, required: true },
      role: { type: String, required: true },
      tokenHash: { type: String, required: true },
      invitedBy: { type: String, default: null },
      createdAt: { type: Date, required: true },
      expiresAt: { type: Date, required: true },
    },
    options,
  );
  schema.index({ tokenHash: 1 }, { unique: true });
  schema.index({ accountId: 1, createdAt: 1 });
  return schema;
}
