// Scan webhook endpoints on MongoDB: the per-account limit held by a conditional counter, as the dynamic codes' is.
import type { Model } from 'mongoose';
import type { ScanWebhookEndpoint, ScanWebhookEvent, ScanWebhookStore } from '../../domain/ports/scan-webhooks.js';
import { newId } from '../../domain/record-id.js';
import { isDuplicateKey } from './connection.js';
import type { ScanWebhookCountDoc, ScanWebhookDoc } from './models.js';

function toEndpoint(doc: ScanWebhookDoc): ScanWebhookEndpoint {
  return {
    id: doc._id,
    accountId: doc.accountId,
    url: doc.url,
    events: doc.events as ScanWebhookEvent[],
    createdAt: doc.createdAt,
  };
}

export class MongoScanWebhookStore implements ScanWebhookStore {
  readonly #endpoints: Model<ScanWebhookDoc>;
  readonly #counts: Model<ScanWebhookCountDoc>;

  constructor(endpoints: Model<ScanWebhookDoc>, counts: Model<ScanWebhookCountDoc>) {
    this.#endpoints = endpoints;
    this.#counts = counts;
  }

  async create(
    endpoint: Omit<ScanWebhookEndpoint, 'id'>,
    maxEndpoints: number,
  ): Promise<ScanWebhookEndpoint | 'limit_reached'> {
    try {
      // At the limit the filter misses and the upsert collides with the existing counter: nothing is taken.
      await this.#counts.updateOne(
        { _id: endpoint.accountId, endpoints: { $lt: maxEndpoints } },
        { $inc: { endpoints: 1 } },
        { upsert: true },
      );
    } catch (error) {
      if (isDuplicateKey(error)) return 'limit_reached';
      throw error;
    }
    const doc: ScanWebhookDoc = {
      _id: newId('whk'),
      accountId: endpoint.accountId,
      url: endpoint.url,
      events: [...endpoint.events],
      createdAt: endpoint.createdAt,
    };
    try {
      await this.#endpoints.create(doc);
    } catch (error) {
      await this.#counts.updateOne({ _id: endpoint.accountId, endpoints: { $gt: 0 } }, { $inc: { endpoints: -1 } });
      throw error;
    }
    return toEndpoint(doc);
  }

  async list(accountId: string): Promise<ScanWebhookEndpoint[]> {
    const docs = await this.#endpoints.find({ accountId }).sort({ createdAt: 1, _id: 1 }).lean<ScanWebhookDoc[]>();
    return docs.map(toEndpoint);
  }

  async remove(accountId: string, id: string): Promise<boolean> {
    const removed = await this.#endpoints.deleteOne({ _id: id, accountId });
    if (removed.deletedCount !== 1) return false;
    await this.#counts.updateOne({ _id: accountId, endpoints: { $gt: 0 } }, { $inc: { endpoints: -1 } });
    return true;
  }
}
