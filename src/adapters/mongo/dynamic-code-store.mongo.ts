// DynamicCodeStore on MongoDB: the plan limit held by a conditional per-account counter, the slug by a unique index.
import { NO_ROUTING, routingFrom, type CodeRouting } from '../../domain/code-routing.js';
import { vanityFrom, type Vanity } from '../../domain/custom-domain.js';
import type { DynamicCode, SlugTarget } from '../../domain/dynamic-code.js';
import type * as port from '../../domain/ports/dynamic-code-store.js';
import { newId } from '../../domain/record-id.js';
import type { OwnFields } from '../record-fields.js';
import { isDuplicateKey } from './connection.js';
import type { DynamicCodeDoc, MongoModels, VanitySlugDoc } from './models.js';

/** A regular expression that matches `text` literally, in any case. */
function literally(text: string): { $regex: string; $options: string } {
  return { $regex: text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), $options: 'i' };
}

function ascending(query: port.CodeQuery): boolean {
  return query.order === 'oldest' || query.order === 'least-scanned';
}

function byScans(query: port.CodeQuery): boolean {
  return query.order === 'most-scanned' || query.order === 'least-scanned';
}

function listFilter(accountId: string, query: port.CodeQuery): Record<string, unknown> {
  const all: Record<string, unknown>[] = [];
  const filter: Record<string, unknown> = { accountId, deletedAt: null, $and: all };
  if (query.text !== undefined) {
    const text = literally(query.text);
    all.push({ $or: [{ name: text }, { target: text }, { slug: text }, { vanitySlug: text }] });
  }
  if (query.status !== undefined) filter.status = query.status;
  if (query.domainId !== undefined) filter.domainId = query.domainId;
  if (query.slug !== undefined) all.push({ $or: [{ slug: query.slug }, { vanitySlug: query.slug }] });
  const { after } = query;
  const beyond = ascending(query) ? '$gt' : '$lt';
  // The order says which kind of cursor this is (a whole code serves as either).
  const [field, position] = byScans(query)
    ? ['scans', (after as { scans: number } | undefined)?.scans]
    : ['createdAt', (after as { createdAt: Date } | undefined)?.createdAt];
  if (after)
    all.push({ $or: [{ [field]: { [beyond]: position } }, { [field]: position, _id: { [beyond]: after.id } }] });
  if (all.length === 0) delete filter.$and;
  return filter;
}

/** The document holds the code's own fields (under `_id` for `id`), its routing, vanity and deletion apart. */
function toCode(doc: DynamicCodeDoc): DynamicCode {
  const { _id, routing, domainId, vanityHost, vanitySlug, scans, deletedAt: _deletedAt, ...fields } = doc;
  return {
    id: _id,
    ...(fields satisfies OwnFields<DynamicCode, typeof fields>),
    routing: routingFrom(routing as Partial<CodeRouting> | undefined),
    vanity: vanityFrom(domainId, vanityHost, vanitySlug),
    scans: scans ?? 0,
  };
}

/** What the redirect reads of a code (no more: it runs on every scan). */
const SLUG_TARGET_FIELDS = { accountId: 1, target: 1, status: 1, routing: 1, deletedAt: 1 } as const;
type SlugTargetDoc = Pick<DynamicCodeDoc, '_id' | 'accountId' | 'target' | 'status' | 'routing' | 'deletedAt'>;

/** A deleted code answers `deleted` (its slug is never reused). */
function toSlugTarget(doc: SlugTargetDoc): SlugTarget {
  const state = doc.deletedAt === null ? doc.status : 'deleted';
  const routing = routingFrom(doc.routing as Partial<CodeRouting> | undefined);
  return { codeId: doc._id, accountId: doc.accountId, target: doc.target, state, routing };
}

/** Only the fields that differ from no routing are stored, each as its own field so a change sets just those. */
function storedRouting(routing: Partial<CodeRouting>): { set: Record<string, unknown>; unset: Record<string, ''> } {
  const set: Record<string, unknown> = {};
  const unset: Record<string, ''> = {};
  for (const [field, value] of Object.entries(routing)) {
    if (JSON.stringify(value) === JSON.stringify(NO_ROUTING[field as keyof CodeRouting]))
      unset[`routing.${field}`] = '';
    else set[`routing.${field}`] = value;
  }
  return { set, unset };
}

const vanityKey = (vanity: Pick<Vanity, 'hostname' | 'slug'>) => `${vanity.hostname}/${vanity.slug}`;
const vanityFields = (vanity: Vanity | null) => ({
  domainId: vanity?.domainId ?? null,
  vanityHost: vanity?.hostname ?? null,
  vanitySlug: vanity?.slug ?? null,
});

/** The collections this store reads and writes. */
type CodeModels = Pick<MongoModels, 'codes' | 'codeCounts' | 'vanitySlugs'>;

export class MongoDynamicCodeStore implements port.DynamicCodeStore {
  readonly #models: CodeModels;

  constructor(models: CodeModels) {
    this.#models = models;
  }

  /** Holds the slug for the code: false when another code holds it (its own hold is fine). */
  async #holdVanity(vanity: Vanity, codeId: string, accountId: string): Promise<boolean> {
    try {
      await this.#models.vanitySlugs.create({ _id: vanityKey(vanity), codeId, accountId });
      return true;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      const holder = await this.#models.vanitySlugs.findById(vanityKey(vanity)).lean<VanitySlugDoc>();
      return holder?.codeId === codeId;
    }
  }

  async #letGo(vanity: Vanity | null, codeId: string): Promise<void> {
    if (vanity) await this.#models.vanitySlugs.deleteOne({ _id: vanityKey(vanity), codeId });
  }

  /**
   * Takes one place under the limit, atomically: when the count is at the limit the upsert collides with the existing
   * document.
   */
  async #reserve(accountId: string, maxCodes: number): Promise<boolean> {
    try {
      await this.#models.codeCounts.updateOne(
        { _id: accountId, codes: { $lt: maxCodes } },
        { $inc: { codes: 1 } },
        { upsert: true },
      );
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  async #release(accountId: string): Promise<void> {
    await this.#models.codeCounts.updateOne({ _id: accountId, codes: { $gt: 0 } }, { $inc: { codes: -1 } });
  }

  async createWithinLimit(input: port.NewDynamicCode, maxCodes: number): Promise<port.CodeCreation> {
    if (maxCodes <= 0 || !(await this.#reserve(input.accountId, maxCodes))) return 'limit_reached';
    const doc = this.#docOf(input);
    const vanity = input.vanity ?? null;
    if (vanity && !(await this.#holdVanity(vanity, doc._id, input.accountId))) {
      await this.#release(input.accountId);
      return 'vanity_taken';
    }
    try {
      await this.#models.codes.create(doc);
      return toCode(doc);
    } catch (error) {
      // Without a transaction the place is given back by hand; a crash right here leaves one place taken until an
      // operator recounts.
      await this.#release(input.accountId);
      await this.#letGo(vanity, doc._id);
      if (isDuplicateKey(error)) return 'slug_taken';
      throw error;
    }
  }

  async createManyWithinLimit(inputs: readonly port.NewDynamicCode[], maxCodes: number): Promise<port.CodesCreation> {
    if (inputs.length === 0) return [];
    const accountId = inputs[0]!.accountId;
    // A batch's codes live on this service (vanity slugs are held one code at a time, by createWithinLimit).
    if (inputs.some((input) => input.vanity)) throw new Error('createManyWithinLimit takes codes without vanity slugs');
    if (!(await this.#reserveMany(accountId, inputs.length, maxCodes))) return 'limit_reached';
    const docs = inputs.map((input) => this.#docOf({ ...input, accountId }));
    try {
      await this.#models.codes.insertMany(docs, { ordered: true });
      return docs.map(toCode);
    } catch (error) {
      // Never handed out: the codes inserted before the failure go, and the places are given back (a crash here leaves
      // them until an operator recounts).
      await this.#models.codes.deleteMany({ _id: { $in: docs.map((doc) => doc._id) } });
      await this.#models.codeCounts.updateOne({ _id: accountId }, { $inc: { codes: -inputs.length } });
      if (isDuplicateKey(error)) return 'slug_taken';
      throw error;
    }
  }

  /** Takes `n` places at once, atomically, as #reserve takes one. */
  async #reserveMany(accountId: string, n: number, maxCodes: number): Promise<boolean> {
    if (n > maxCodes) return false;
    try {
      await this.#models.codeCounts.updateOne(
        { _id: accountId, codes: { $lte: maxCodes - n } },
        { $inc: { codes: n } },
        { upsert: true },
      );
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  /** A new code's document (createWithinLimit and createManyWithinLimit both store these). */
  #docOf(input: port.NewDynamicCode): DynamicCodeDoc {
    return {
      _id: newId('dyn'),
      accountId: input.accountId,
      slug: input.slug,
      target: input.target,
      name: input.name,
      status: 'active',
      disabledReason: null,
      routing: Object.fromEntries(
        Object.entries(storedRouting(input.routing).set).map(([path, value]) => [path.slice('routing.'.length), value]),
      ),
      ...vanityFields(input.vanity ?? null),
      createdAt: input.createdAt,
      updatedAt: input.createdAt,
      deletedAt: null,
    };
  }

  async list(accountId: string, query: port.CodeQuery): Promise<DynamicCode[]> {
    const direction = ascending(query) ? 1 : -1;
    const docs = await this.#models.codes
      .find(listFilter(accountId, query))
      .sort(byScans(query) ? { scans: direction, _id: direction } : { createdAt: direction, _id: direction })
      .limit(query.limit)
      .lean<DynamicCodeDoc[]>();
    return docs.map(toCode);
  }

  async count(accountId: string): Promise<number> {
    return this.#models.codes.countDocuments({ accountId, deletedAt: null });
  }

  async get(accountId: string, id: string): Promise<DynamicCode | undefined> {
    const doc = await this.#models.codes.findOne({ _id: id, accountId, deletedAt: null }).lean<DynamicCodeDoc>();
    return doc ? toCode(doc) : undefined;
  }

  async update(accountId: string, id: string, changes: port.CodeChanges, at: Date): Promise<port.CodeUpdate> {
    const set: Partial<DynamicCodeDoc> = { updatedAt: at };
    let before: DynamicCode | undefined;
    if (changes.vanity !== undefined) {
      before = await this.get(accountId, id);
      if (!before) return undefined;
      if (before.status === 'disabled') return 'disabled';
      if (changes.vanity && !(await this.#holdVanity(changes.vanity, id, accountId))) return 'vanity_taken';
      Object.assign(set, vanityFields(changes.vanity));
    }
    if (changes.target !== undefined) set.target = changes.target;
    if (changes.name !== undefined) set.name = changes.name;
    if (changes.status !== undefined) set.status = changes.status;
    const routing = storedRouting(changes.routing ?? {});
    const update = {
      $set: { ...set, ...routing.set },
      ...(Object.keys(routing.unset).length > 0 ? { $unset: routing.unset } : {}),
    };
    const updated = await this.#models.codes
      .findOneAndUpdate({ _id: id, accountId, deletedAt: null, status: { $ne: 'disabled' } }, update, { new: true })
      .lean<DynamicCodeDoc>();
    if (updated) {
      const code = toCode(updated);
      // The old slug is let go once the code has moved (a crash in between leaves it held, never two codes on one
      // slug).
      if (before?.vanity && (code.vanity === null || vanityKey(code.vanity) !== vanityKey(before.vanity)))
        await this.#letGo(before.vanity, id);
      return code;
    }
    if (changes.vanity) await this.#letGo(changes.vanity, id);
    return (await this.get(accountId, id)) ? 'disabled' : undefined;
  }

  async remove(accountId: string, id: string, at: Date): Promise<boolean> {
    const removed = await this.#models.codes
      .findOneAndUpdate(
        { _id: id, accountId, deletedAt: null },
        { $set: { deletedAt: at, updatedAt: at, ...vanityFields(null) } },
      )
      .lean<DynamicCodeDoc>();
    if (!removed) return false;
    await this.#release(accountId);
    await this.#letGo(toCode(removed).vanity, id);
    return true;
  }

  async findBySlug(slug: string): Promise<SlugTarget | undefined> {
    const doc = await this.#models.codes.findOne({ slug }, SLUG_TARGET_FIELDS).lean<SlugTargetDoc>();
    return doc ? toSlugTarget(doc) : undefined;
  }

  async findByVanity(hostname: string, slug: string): Promise<SlugTarget | undefined> {
    const held = await this.#models.vanitySlugs.findById(vanityKey({ hostname, slug })).lean<VanitySlugDoc>();
    if (!held) return undefined;
    const doc = await this.#models.codes
      .findOne({ _id: held.codeId, deletedAt: null, vanityHost: hostname, vanitySlug: slug }, SLUG_TARGET_FIELDS)
      .lean<SlugTargetDoc>();
    return doc ? toSlugTarget(doc) : undefined;
  }

  async codesById(afterId: string | undefined, limit: number): Promise<Array<{ id: string; accountId: string }>> {
    const docs = await this.#models.codes
      .find(afterId === undefined ? {} : { _id: { $gt: afterId } }, { _id: 1, accountId: 1 })
      .sort({ _id: 1 })
      .limit(limit)
      .lean<Array<{ _id: string; accountId: string }>>();
    return docs.map((doc) => ({ id: doc._id, accountId: doc.accountId }));
  }

  async countOnDomain(domainId: string): Promise<number> {
    return this.#models.codes.countDocuments({ domainId, deletedAt: null });
  }

  async disableBySlug(slug: string, reason: string, at: Date): Promise<DynamicCode | undefined> {
    const doc = await this.#models.codes
      .findOneAndUpdate(
        { slug },
        { $set: { status: 'disabled', disabledReason: reason, updatedAt: at } },
        { new: true },
      )
      .lean<DynamicCodeDoc>();
    return doc ? toCode(doc) : undefined;
  }
}
