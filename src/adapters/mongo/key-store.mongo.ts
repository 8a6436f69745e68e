// KeyStore on MongoDB: hashed keys; the active-key limit held by a unique (account, slot) index instead of a
// transaction.
import type { Model } from 'mongoose';
import type { ApiKeyRecord, Credential, KeyStore, NewApiKey } from '../../domain/ports/key-store.js';
import type { Actor } from '../../domain/actor.js';
import { scopesFromStore, scopesToStore } from '../../domain/key-scope.js';
import type { PlanId } from '../../domain/plan-catalogue.js';
import { newId } from '../../domain/record-id.js';
import { insertInFreeSlot, revokeFreeingSlot } from './active-slots.js';
import type { AccountDoc, ApiKeyDoc } from './models.js';

function toRecord(doc: ApiKeyDoc): ApiKeyRecord {
  return {
    id: doc._id,
    accountId: doc.accountId,
    name: doc.name,
    hint: doc.hint,
    createdAt: doc.createdAt,
    lastUsedAt: doc.lastUsedAt ?? undefined,
    revokedAt: doc.revokedAt ?? undefined,
    scopes: scopesFromStore(doc.scopes),
    expiresAt: doc.expiresAt ?? undefined,
    createdBy: (doc.createdBy as Actor | null | undefined) ?? undefined,
  };
}

const RECORD_FIELDS = { activeSlot: 0, hash: 0 } as const;

export class MongoKeyStore implements KeyStore {
  readonly #keys: Model<ApiKeyDoc>;
  readonly #accounts: Model<AccountDoc>;

  constructor(keys: Model<ApiKeyDoc>, accounts: Model<AccountDoc>) {
    this.#keys = keys;
    this.#accounts = accounts;
  }

  async createWithinLimit(input: NewApiKey, maxActive: number): Promise<ApiKeyRecord | 'limit_reached'> {
    const doc = await insertInFreeSlot<ApiKeyDoc>(
      this.#keys,
      input.accountId,
      maxActive,
      (slot) => ({
        _id: newId('key'),
        accountId: input.accountId,
        name: input.name,
        hash: input.hash,
        hint: input.hint,
        createdAt: input.createdAt,
        lastUsedAt: null,
        revokedAt: null,
        scopes: scopesToStore(input.scopes),
        expiresAt: input.expiresAt ?? null,
        createdBy: { ...input.createdBy },
        activeSlot: slot,
      }),
      'key',
    );
    return doc === 'limit_reached' ? doc : toRecord(doc);
  }

  async findActiveCredential(hash: string): Promise<Credential | undefined> {
    const key = await this.#keys
      .findOne({ hash, revokedAt: null }, { accountId: 1, hint: 1, scopes: 1, expiresAt: 1 })
      .lean<Pick<ApiKeyDoc, '_id' | 'accountId' | 'hint' | 'scopes' | 'expiresAt'>>();
    if (!key) return undefined;
    const account = await this.#accounts.findById(key.accountId, { plan: 1 }).lean<{ plan: string }>();
    if (!account) return undefined;
    return {
      keyId: key._id,
      accountId: key.accountId,
      plan: account.plan as PlanId,
      hint: key.hint,
      scopes: scopesFromStore(key.scopes),
      expiresAt: key.expiresAt ?? undefined,
    };
  }

  async list(accountId: string): Promise<ApiKeyRecord[]> {
    const docs = await this.#keys
      .find({ accountId }, RECORD_FIELDS)
      .sort({ createdAt: -1, _id: 1 })
      .lean<ApiKeyDoc[]>();
    return docs.map(toRecord);
  }

  async revoke(accountId: string, keyId: string, at: Date): Promise<ApiKeyRecord | undefined> {
    const key = await revokeFreeingSlot(this.#keys, accountId, keyId, at, RECORD_FIELDS);
    return key && toRecord(key);
  }

  async recordLastUsed(entries: ReadonlyArray<{ keyId: string; at: Date }>): Promise<void> {
    if (entries.length === 0) return;
    // $max: last-used times only move forward, whatever order the batches arrive in.
    await this.#keys.bulkWrite(
      entries.map(({ keyId, at }) => ({ updateOne: { filter: { _id: keyId }, update: { $max: { lastUsedAt: at } } } })),
      { ordered: false },
    );
  }
}
