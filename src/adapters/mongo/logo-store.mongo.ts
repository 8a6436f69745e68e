// LogoStore on MongoDB: PNG bytes per account; the count limit held by a per-account unique slot, as the keys' limit
// is.
import type { Model } from 'mongoose';
import {
  DEFAULT_LOGO_NAME,
  type LogoRecord,
  type LogoStore,
  type NewLogo,
  type StoredLogo,
} from '../../domain/ports/logo-store.js';
import { newId } from '../../domain/record-id.js';
import { insertInLowestSlot } from './active-slots.js';
import type { LogoDoc } from './models.js';

const RECORD_FIELDS = {
  accountId: 1,
  name: { $ifNull: ['$name', DEFAULT_LOGO_NAME] },
  width: 1,
  height: 1,
  digest: 1,
  createdAt: 1,
  bytes: { $binarySize: '$png' },
} as const;

function toRecord(doc: Omit<LogoDoc, 'png' | 'slot'> & { bytes: number }): LogoRecord {
  return {
    id: doc._id,
    accountId: doc.accountId,
    name: doc.name ?? DEFAULT_LOGO_NAME,
    mediaType: 'image/png',
    width: doc.width,
    height: doc.height,
    bytes: doc.bytes,
    digest: doc.digest,
    createdAt: doc.createdAt,
  };
}

export class MongoLogoStore implements LogoStore {
  readonly #logos: Model<LogoDoc>;

  constructor(logos: Model<LogoDoc>) {
    this.#logos = logos;
  }

  async createWithinLimit(input: NewLogo, maxLogos: number | null): Promise<LogoRecord | 'limit_reached'> {
    const doc = await insertInLowestSlot(
      this.#logos,
      input.accountId,
      maxLogos,
      (slot) => ({
        _id: newId('logo'),
        accountId: input.accountId,
        name: input.name,
        png: Buffer.from(input.png),
        width: input.width,
        height: input.height,
        digest: input.digest,
        createdAt: input.createdAt,
        slot,
      }),
      'logo',
    );
    return doc === 'limit_reached' ? doc : toRecord({ ...doc, bytes: input.png.byteLength });
  }

  async list(accountId: string): Promise<LogoRecord[]> {
    return this.#records({ accountId });
  }

  /** The logos matching `match`, newest first, without their bytes (only their size). */
  async #records(match: Record<string, string>): Promise<LogoRecord[]> {
    const docs = await this.#logos.aggregate<Omit<LogoDoc, 'png' | 'slot'> & { bytes: number }>([
      { $match: match },
      { $sort: { createdAt: -1, _id: 1 } },
      { $project: RECORD_FIELDS },
    ]);
    return docs.map(toRecord);
  }

  async get(accountId: string, id: string): Promise<StoredLogo | undefined> {
    const doc = await this.#logos.findOne({ _id: id, accountId }).lean<LogoDoc>();
    if (!doc) return undefined;
    // lean() hands binary fields back as BSON Binary, whose bytes are its `buffer`.
    const raw = doc.png as unknown as Uint8Array | { buffer: Uint8Array };
    const bytes = raw instanceof Uint8Array ? raw : raw.buffer;
    // A plain Uint8Array over the same memory, as every LogoStore answers (a Buffer is a subclass with more to it).
    const png = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return { ...toRecord({ ...doc, bytes: png.byteLength }), png };
  }

  async rename(accountId: string, id: string, name: string): Promise<LogoRecord | undefined> {
    const result = await this.#logos.updateOne({ _id: id, accountId }, { $set: { name } });
    if (result.matchedCount === 0) return undefined;
    const [doc] = await this.#records({ _id: id, accountId });
    return doc;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const result = await this.#logos.deleteOne({ _id: id, accountId });
    return result.deletedCount > 0;
  }
}
