// Scan webhook endpoints on SQLite: the per-account limit checked and the insert made in one IMMEDIATE transaction.
import type { ScanWebhookEndpoint, ScanWebhookEvent, ScanWebhookStore } from '../../domain/ports/scan-webhooks.js';
import type { SqliteDatabase } from './database.js';
import { newId } from '../../domain/record-id.js';

interface EndpointRow {
  id: string;
  account_id: string;
  url: string;
  events: string;
  created_at: number;
}

function toEndpoint(row: EndpointRow): ScanWebhookEndpoint {
  return {
    id: row.id,
    accountId: row.account_id,
    url: row.url,
    events: JSON.parse(row.events) as ScanWebhookEvent[],
    createdAt: new Date(row.created_at),
  };
}

export class SqliteScanWebhookStore implements ScanWebhookStore {
  readonly #db: SqliteDatabase;
  readonly #count;
  readonly #insert;
  readonly #list;
  readonly #remove;

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#count = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM scan_webhooks WHERE account_id = ?');
    this.#insert = db.prepare<[string, string, string, string, number], EndpointRow>(
      'INSERT INTO scan_webhooks (id, account_id, url, events, created_at) VALUES (?, ?, ?, ?, ?) RETURNING *',
    );
    this.#list = db.prepare<[string], EndpointRow>(
      'SELECT * FROM scan_webhooks WHERE account_id = ? ORDER BY created_at, id',
    );
    this.#remove = db.prepare<[string, string], unknown>('DELETE FROM scan_webhooks WHERE id = ? AND account_id = ?');
  }

  async create(
    endpoint: Omit<ScanWebhookEndpoint, 'id'>,
    maxEndpoints: number,
  ): Promise<ScanWebhookEndpoint | 'limit_reached'> {
    const create = this.#db.transaction((): ScanWebhookEndpoint | 'limit_reached' => {
      if (this.#count.get(endpoint.accountId)!.n >= maxEndpoints) return 'limit_reached';
      return toEndpoint(
        this.#insert.get(
          newId('whk'),
          endpoint.accountId,
          endpoint.url,
          JSON.stringify(endpoint.events),
          endpoint.createdAt.getTime(),
        )!,
      );
    });
    return create.immediate();
  }

  async list(accountId: string): Promise<ScanWebhookEndpoint[]> {
    return this.#list.all(accountId).map(toEndpoint);
  }

  async remove(accountId: string, id: string): Promise<boolean> {
    return this.#remove.run(id, accountId).changes === 1;
  }
}
