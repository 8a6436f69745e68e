// SigningKeyStore on MongoDB: sealed secrets; the active-key limit held by a unique (account, slot) index, as the API
// keys' is.
import type { Model } from 'mongoose';
import type { PlanId } from '../../domain/plan-catalogue.js';
import type {
  NewSigningKey,
  SigningCredential,
  SigningKeyRecord,
  SigningKeyStore,
} from '../../domain/ports/signing-key-store.js';
import type { OwnFields } from '../record-fields.js';
import { insertInFreeSlot, revokeFreeingSlot } from './active-slots.js';
import type { AccountDoc, SigningKeyDoc } from './models.js';

/** The document holds the record's own fields (under `_id` for `id`) beside the sealed secret and the slot. */
function toRecord(doc: SigningKeyDoc): SigningKeyRecord {
  const { _id, revokedAt, sealedSecret: _sealed, activeSlot: _slot, ...fields } = doc;
  return {
    id: _id,
    ...(fields satisfies OwnFields<SigningKeyRecord, typeof fields>),
    revokedAt: revokedAt ?? undefined,
  };
}

const RECORD_FIELDS = { activeSlot: 0, sealedSecret: 0 } as const;

export class MongoSigningKeyStore implements SigningKeyStore {
  readonly #keys: Model<SigningKeyDoc>;
  readonly #accounts: Model<AccountDoc>;

  constructor(keys: Model<SigningKeyDoc>, accounts: Model<AccountDoc>) {
    this.#keys = keys;
    this.#accounts = accounts;
  }

  async createWithinLimit(input: NewSigningKey, maxActive: number): Promise<SigningKeyRecord | 'limit_reached'> {
    const doc = await insertInFreeSlot<SigningKeyDoc>(
      this.#keys,
      input.accountId,
      maxActive,
      (slot) => ({
        _id: input.id,
        accountId: input.accountId,
        name: input.name,
        sealedSecret: input.sealedSecret,
        createdAt: input.createdAt,
        revokedAt: null,
        activeSlot: slot,
      }),
      'signing key',
    );
    return doc === 'limit_reached' ? doc : toRecord(doc);
  }

  async findActive(keyId: string): Promise<SigningCredential | undefined> {
    const key = await this.#keys
      .findOne({ _id: keyId, revokedAt: null }, { accountId: 1, sealedSecret: 1 })
      .lean<{ accountId: string; sealedSecret: string }>();
    if (!key) return undefined;
    const account = await this.#accounts.findById(key.accountId, { plan: 1 }).lean<{ plan: string }>();
    return account
      ? { keyId, accountId: key.accountId, plan: account.plan as PlanId, sealedSecret: key.sealedSecret }
      : undefined;
  }

  async list(accountId: string): Promise<SigningKeyRecord[]> {
    const docs = await this.#keys
      .find({ accountId }, RECORD_FIELDS)
      .sort({ createdAt: -1, _id: 1 })
      .lean<SigningKeyDoc[]>();
    return docs.map(toRecord);
  }

  async revoke(accountId: string, keyId: string, at: Date): Promise<SigningKeyRecord | undefined> {
    const key = await revokeFreeingSlot(this.#keys, accountId, keyId, at, RECORD_FIELDS);
    return key && toRecord(key);
  }
}
