// ScanEventSource on SQLite: the scans the recorder counted (scan_events_pending), fanned out to each endpoint's outbox
// and sealed into messages, each step one transaction.
import type { CodeScans, ScanEventSource, ScanMessage } from '../../domain/ports/scan-webhooks.js';
import type { DeviceClass } from '../../domain/scan.js';
import type { SqliteDatabase } from './database.js';

type Devices = Partial<Record<DeviceClass, number>>;

interface OutboxRow {
  since: number;
  message_id: string | null;
  message_from: number | null;
  message_to: number | null;
  attempts: number;
  next_at: number | null;
}

interface ScanRow {
  code_id: string;
  scans: number;
  devices: string;
}

function added(a: Devices, b: Devices): Devices {
  const sum: Devices = { ...a };
  for (const [device, n] of Object.entries(b) as Array<[DeviceClass, number]>) sum[device] = (sum[device] ?? 0) + n;
  return sum;
}

const codeScans = (row: ScanRow): CodeScans => ({
  codeId: row.code_id,
  scans: row.scans,
  devices: JSON.parse(row.devices) as Devices,
});

export class SqliteScanEventSource implements ScanEventSource {
  readonly #accounts;
  readonly #fanOut;
  readonly #busy;
  readonly #seal;
  readonly #settle;
  readonly #drop;

  constructor(db: SqliteDatabase) {
    this.#accounts = db.prepare<[number], { account_id: string }>(
      'SELECT DISTINCT account_id FROM scan_events_pending LIMIT ?',
    );
    this.#busy = db.prepare<[], { endpoint_id: string; account_id: string }>(
      'SELECT endpoint_id, account_id FROM scan_webhook_outbox',
    );
    const takeCounted = db.prepare<[string], ScanRow>(
      'DELETE FROM scan_events_pending WHERE account_id = ? RETURNING code_id, scans, devices',
    );
    const openOutbox = db.prepare<[string, string, number], unknown>(
      'INSERT OR IGNORE INTO scan_webhook_outbox (endpoint_id, account_id, since) VALUES (?, ?, ?)',
    );
    const waiting = db.prepare<[string, string], ScanRow>(
      'SELECT code_id, scans, devices FROM scan_webhook_scans WHERE endpoint_id = ? AND sealed = 0 AND code_id = ?',
    );
    const putWaiting = db.prepare<[string, string, number, string], unknown>(
      'INSERT OR REPLACE INTO scan_webhook_scans (endpoint_id, sealed, code_id, scans, devices) VALUES (?, 0, ?, ?, ?)',
    );
    this.#fanOut = db.transaction((accountId: string, endpointIds: readonly string[], at: number) => {
      const counted = takeCounted.all(accountId);
      if (counted.length === 0) return;
      for (const endpointId of endpointIds) {
        openOutbox.run(endpointId, accountId, at);
        for (const row of counted) {
          const before = waiting.get(endpointId, row.code_id);
          const devices = before
            ? added(JSON.parse(before.devices) as Devices, JSON.parse(row.devices) as Devices)
            : (JSON.parse(row.devices) as Devices);
          putWaiting.run(endpointId, row.code_id, (before?.scans ?? 0) + row.scans, JSON.stringify(devices));
        }
      }
    });

    const outbox = db.prepare<[string], OutboxRow>(
      'SELECT since, message_id, message_from, message_to, attempts, next_at FROM scan_webhook_outbox WHERE ' +
        'endpoint_id = ?',
    );
    const scansOf = db.prepare<[string, number], ScanRow>(
      'SELECT code_id, scans, devices FROM scan_webhook_scans WHERE endpoint_id = ? AND sealed = ? ORDER BY code_id',
    );
    const sealWaiting = db.prepare<[string], unknown>(
      'UPDATE scan_webhook_scans SET sealed = 1 WHERE endpoint_id = ? AND sealed = 0',
    );
    const startMessage = db.prepare<[string, number, number, number, string], unknown>(
      'UPDATE scan_webhook_outbox SET message_id = ?, message_from = since, message_to = ?, attempts = 0, ' +
        'next_at = ?, since = ? WHERE endpoint_id = ?',
    );
    const closeOutbox = db.prepare<[string], unknown>('DELETE FROM scan_webhook_outbox WHERE endpoint_id = ?');
    const messageOf = (endpointId: string, row: OutboxRow): ScanMessage => ({
      id: row.message_id!,
      from: new Date(row.message_from!),
      to: new Date(row.message_to!),
      codes: scansOf.all(endpointId, 1).map(codeScans),
      attempts: row.attempts,
      nextAt: new Date(row.next_at!),
    });
    this.#seal = db.transaction((endpointId: string, messageId: string, at: number): ScanMessage | undefined => {
      const row = outbox.get(endpointId);
      if (!row) return undefined;
      if (row.message_id !== null) return messageOf(endpointId, row);
      if (sealWaiting.run(endpointId).changes === 0) {
        // Nothing sent, nothing waiting: the endpoint is idle, and its next scans start a new span.
        closeOutbox.run(endpointId);
        return undefined;
      }
      startMessage.run(messageId, at, at, at, endpointId);
      return messageOf(endpointId, outbox.get(endpointId)!);
    });

    const retry = db.prepare<[number, string, string], unknown>(
      'UPDATE scan_webhook_outbox SET attempts = attempts + 1, next_at = ? WHERE endpoint_id = ? AND message_id = ?',
    );
    const finish = db.prepare<[string, string], unknown>(
      'UPDATE scan_webhook_outbox SET message_id = NULL, message_from = NULL, message_to = NULL, attempts = 0, ' +
        'next_at = NULL WHERE endpoint_id = ? AND message_id = ?',
    );
    const dropSealed = db.prepare<[string], unknown>(
      'DELETE FROM scan_webhook_scans WHERE endpoint_id = ? AND sealed = 1',
    );
    this.#settle = db.transaction((endpointId: string, messageId: string, retryAt: number | undefined) => {
      if (retryAt !== undefined) return void retry.run(retryAt, endpointId, messageId);
      if (finish.run(endpointId, messageId).changes === 1) dropSealed.run(endpointId);
    });
    const dropScans = db.prepare<[string], unknown>('DELETE FROM scan_webhook_scans WHERE endpoint_id = ?');
    this.#drop = db.transaction((endpointId: string) => {
      dropScans.run(endpointId);
      closeOutbox.run(endpointId);
    });
  }

  async waitingAccounts(limit: number): Promise<string[]> {
    return this.#accounts.all(limit).map((row) => row.account_id);
  }

  async fanOut(accountId: string, endpointIds: readonly string[], at: Date): Promise<void> {
    this.#fanOut.immediate(accountId, endpointIds, at.getTime());
  }

  async busyEndpoints(): Promise<Array<{ endpointId: string; accountId: string }>> {
    return this.#busy.all().map((row) => ({ endpointId: row.endpoint_id, accountId: row.account_id }));
  }

  async seal(_accountId: string, endpointId: string, messageId: string, at: Date): Promise<ScanMessage | undefined> {
    return this.#seal.immediate(endpointId, messageId, at.getTime());
  }

  async settle(_accountId: string, endpointId: string, messageId: string, retryAt: Date | undefined): Promise<void> {
    this.#settle.immediate(endpointId, messageId, retryAt?.getTime());
  }

  async drop(_accountId: string, endpointId: string): Promise<void> {
    this.#drop.immediate(endpointId);
  }
}
