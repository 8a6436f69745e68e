// Scan webhook endpoints on SQLite, and the scans the recorder counted for them (taken in one transaction).
import type { AccountScans, DeviceClass } from '../../domain/scan.js';
import type { ScanEventSource, ScanWebhookEndpoint, ScanWebhookEvent, ScanWebhookStore } from '../../domain/ports/scan-webhooks.js';
import type { SqliteDatabase } from './database.js';
import { newId } from './ids.js';

interface EndpointRow {
  id: string;
  account_id: string;
  url: string;
  events: string;
  created_at: number;
}

function toEndpoint(row: EndpointRow): ScanWebhookEndpoint {
  return { id: row.id, accountId: row.account_id, url: row.url, events: JSON.parse(row.events) as ScanWebhookEvent[], createdAt: new Date(row.created_at) };
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
    this.#list = db.prepare<[string], EndpointRow>('SELECT * FROM scan_webhooks WHERE account_id = ? ORDER BY created_at, id');
    this.#remove = db.prepare<[string, string], unknown>('DELETE FROM scan_webhooks WHERE id = ? AND account_id = ?');
  }

  async create(endpoint: Omit<ScanWebhookEndpoint, 'id'>, maxEndpoints: number): Promise<ScanWebhookEndpoint | 'limit_reached'> {
    const create = this.#db.transaction((): ScanWebhookEndpoint | 'limit_reached' => {
      if (this.#count.get(endpoint.accountId)!.n >= maxEndpoints) return 'limit_reached';
      return toEndpoint(this.#insert.get(newId('whk'), endpoint.accountId, endpoint.url, JSON.stringify(endpoint.events), endpoint.createdAt.getTime())!);
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

export class SqliteScanEventSource implements ScanEventSource {
  readonly #take;

  constructor(db: SqliteDatabase) {
    const accounts = db.prepare<[number], { account_id: string }>('SELECT DISTINCT account_id FROM scan_events_pending LIMIT ?');
    const rows = db.prepare<[string], { code_id: string; scans: number; devices: string }>(
      'DELETE FROM scan_events_pending WHERE account_id = ? RETURNING code_id, scans, devices',
    );
    this.#take = db.transaction((limit: number): AccountScans[] =>
      accounts.all(limit).map(({ account_id }) => ({
        accountId: account_id,
        codes: rows.all(account_id).map((r) => ({ codeId: r.code_id, scans: r.scans, devices: JSON.parse(r.devices) as Partial<Record<DeviceClass, number>> })),
      })),
    );
  }

  async take(limit: number): Promise<AccountScans[]> {
    return this.#take.immediate(limit);
  }
}
