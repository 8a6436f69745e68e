// CustomDomainStore on MongoDB: the hostname held by a unique index, the count limit by a per-account unique slot (as
// the designs').
import type { Model } from 'mongoose';
import type { CustomDomain, DomainStatus } from '../../domain/custom-domain.js';
import type { CustomDomainStore, NewCustomDomain } from '../../domain/ports/custom-domain-store.js';
import type { OwnFields } from '../record-fields.js';
import { insertInLowestSlot } from './active-slots.js';
import type { CustomDomainDoc } from './models.js';

/** The document holds the domain's own fields (under `_id` for `id`), its slot, and the last check in two fields. */
function toDomain({ _id, slot: _slot, verifiedAt, checkedAt, checkProblem, ...fields }: CustomDomainDoc): CustomDomain {
  const lastCheck = checkedAt ? { at: checkedAt, problem: checkProblem ?? null } : null;
  return {
    id: _id,
    ...(fields satisfies OwnFields<CustomDomain, typeof fields>),
    verifiedAt: verifiedAt ?? null,
    lastCheck,
  };
}

export class MongoCustomDomainStore implements CustomDomainStore {
  readonly #domains: Model<CustomDomainDoc>;

  constructor(domains: Model<CustomDomainDoc>) {
    this.#domains = domains;
  }

  async createWithinLimit(
    input: NewCustomDomain,
    maxDomains: number | null,
  ): Promise<CustomDomain | 'limit_reached' | 'hostname_taken'> {
    // Of two writers racing for the same hostname its unique index lets one in; the other sees it taken next attempt.
    const hostnameTaken = async () =>
      (await this.#domains.exists({ hostname: input.hostname })) ? ('hostname_taken' as const) : undefined;
    const doc = await insertInLowestSlot(
      this.#domains,
      input.accountId,
      maxDomains,
      (slot): CustomDomainDoc => ({
        _id: input.id,
        accountId: input.accountId,
        hostname: input.hostname,
        token: input.token,
        status: 'pending',
        createdAt: input.createdAt,
        verifiedAt: null,
        checkedAt: null,
        checkProblem: null,
        slot,
      }),
      'domain',
      hostnameTaken,
    );
    return doc === 'limit_reached' || doc === 'hostname_taken' ? doc : toDomain(doc);
  }

  async list(accountId: string): Promise<CustomDomain[]> {
    const docs = await this.#domains.find({ accountId }).sort({ createdAt: 1, _id: 1 }).lean<CustomDomainDoc[]>();
    return docs.map(toDomain);
  }

  async get(accountId: string, id: string): Promise<CustomDomain | undefined> {
    const doc = await this.#domains.findOne({ _id: id, accountId }).lean<CustomDomainDoc>();
    return doc ? toDomain(doc) : undefined;
  }

  async findByHostname(hostname: string): Promise<CustomDomain | undefined> {
    const doc = await this.#domains.findOne({ hostname }).lean<CustomDomainDoc>();
    return doc ? toDomain(doc) : undefined;
  }

  async activate(id: string, at: Date): Promise<CustomDomain | undefined> {
    // The first verification's instant is kept: only a domain never verified takes `at`.
    await this.#domains.updateOne({ _id: id, verifiedAt: null }, { $set: { status: 'active', verifiedAt: at } });
    await this.#domains.updateOne({ _id: id, status: { $ne: 'active' } }, { $set: { status: 'active' } });
    const doc = await this.#domains.findOne({ _id: id }).lean<CustomDomainDoc>();
    return doc ? toDomain(doc) : undefined;
  }

  async noteCheck(id: string, at: Date, problem: string | null): Promise<void> {
    await this.#domains.updateOne({ _id: id }, { $set: { checkedAt: at, checkProblem: problem } });
  }

  async transition(id: string, from: DomainStatus, to: DomainStatus): Promise<CustomDomain | undefined> {
    const doc = await this.#domains
      .findOneAndUpdate({ _id: id, status: from }, { $set: { status: to } }, { new: true })
      .lean<CustomDomainDoc>();
    return doc ? toDomain(doc) : undefined;
  }

  async expirePending(createdBefore: Date): Promise<number> {
    return (
      await this.#domains.updateMany(
        { status: 'pending', createdAt: { $lt: createdBefore } },
        { $set: { status: 'expired' } },
      )
    ).modifiedCount;
  }

  async releaseExpired(hostname: string): Promise<boolean> {
    return (await this.#domains.deleteOne({ hostname, status: 'expired' })).deletedCount > 0;
  }

  async due(status: DomainStatus, before: Date, limit: number): Promise<CustomDomain[]> {
    const docs = await this.#domains
      .find({ status, $or: [{ checkedAt: null }, { checkedAt: { $lt: before } }] })
      .sort({ checkedAt: 1, _id: 1 })
      .limit(limit)
      .lean<CustomDomainDoc[]>();
    return docs.map(toDomain);
  }

  async remove(accountId: string, id: string): Promise<boolean> {
    return (await this.#domains.deleteOne({ _id: id, accountId })).deletedCount > 0;
  }
}
