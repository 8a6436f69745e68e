// BatchStore on SQLite: a batch row, one row per item; item moves and batch counts in one transaction.
import {
  finishedStatus,
  webhookAfter,
  webhookStatusOf,
  type WebhookState,
  type Batch,
  type BatchItem,
  type BatchItemState,
  type BatchStatus,
  type ItemState,
} from '../../domain/batches/batch.js';
import { newWebhookSecret, signingSecretsAt } from '../../domain/batches/webhook-secret.js';
import type * as port from '../../domain/ports/batch-store.js';
import type { RenderSpec } from '../../domain/render-options.js';
import type { SqliteDatabase } from './database.js';

/** A batches row: the columns named as the batch's fields hold them as they are. */
interface BatchRow extends Pick<Batch, 'id' | 'plan' | 'status' | 'total' | 'succeeded' | 'failed' | 'cancelled'> {
  account_id: string;
  period: string;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  webhook_url: string | null;
  idempotency_key: string | null;
  request_hash: string;
  webhook_state: WebhookState | null;
  webhook_attempts: number;
  webhook_error: string | null;
}

/** A batch_items row: the columns named as the item's fields hold them as they are; the spec is JSON text. */
interface ItemRow extends Pick<BatchItemState, 'file' | 'type' | 'fingerprint' | 'state'> {
  idx: number;
  name: string | null;
  spec: string;
  error_code: string | null;
  code_id: string | null;
}

const dateOf = (ms: number | null) => (ms === null ? undefined : new Date(ms));

function toBatch(row: BatchRow): Batch {
  return {
    id: row.id,
    accountId: row.account_id,
    plan: row.plan,
    status: row.status,
    total: row.total,
    succeeded: row.succeeded,
    failed: row.failed,
    cancelled: row.cancelled,
    period: row.period,
    createdAt: new Date(row.created_at),
    startedAt: dateOf(row.started_at),
    finishedAt: dateOf(row.finished_at),
    webhookUrl: row.webhook_url ?? undefined,
    idempotencyKey: row.idempotency_key ?? undefined,
    requestHash: row.request_hash,
    webhook:
      row.webhook_url === null
        ? undefined
        : webhookStatusOf(row.webhook_state, row.webhook_attempts, row.webhook_error),
  };
}

function toItem(row: ItemRow): BatchItemState {
  return {
    index: row.idx,
    name: row.name ?? undefined,
    file: row.file,
    type: row.type,
    fingerprint: row.fingerprint,
    spec: JSON.parse(row.spec) as RenderSpec,
    state: row.state,
    errorCode: row.error_code ?? undefined,
    ...(row.code_id === null ? {} : { codeId: row.code_id }),
  };
}

const BATCH_COLUMNS =
  'id, account_id, plan, status, total, succeeded, failed, cancelled, period, created_at, started_at, ' +
  'finished_at, webhook_url, idempotency_key, request_hash';
/** What a read returns: the columns written at creation, and the webhook's delivery state. */
const BATCH_READ = `${BATCH_COLUMNS}, webhook_state, webhook_attempts, webhook_error`;

export class SqliteBatchStore implements port.BatchStore {
  readonly #create;
  readonly #get;
  readonly #getById;
  readonly #byKey;
  readonly #list;
  readonly #listBefore;
  readonly #inFlight;
  readonly #items;
  readonly #markRunning;
  readonly #finishItems;
  readonly #cancel;
  readonly #remove;
  readonly #finishedBefore;
  readonly #unfinished;
  readonly #webhookSecret;
  readonly #signingSecrets;
  readonly #rotateSecret;
  readonly #dueWebhooks;
  readonly #claimWebhook;
  readonly #settleWebhook;

  constructor(db: SqliteDatabase) {
    const insertBatch = db.prepare<[Record<string, unknown>], unknown>(
      `INSERT INTO batches (${BATCH_COLUMNS}) VALUES (@id, @account_id, @plan, @status, @total, 0, 0, 0, ` +
        `@period, @created_at, NULL, NULL, @webhook_url, @idempotency_key, @request_hash)`,
    );
    const insertItem = db.prepare<
      [string, number, string | null, string, string, string, string, string | null],
      unknown
    >(
      'INSERT INTO batch_items (batch_id, idx, name, file, type, fingerprint, spec, code_id) VALUES (?, ?, ?, ' +
        '?, ?, ?, ?, ?)',
    );
    const byKey = db.prepare<[string, string], BatchRow>(
      `SELECT ${BATCH_READ} FROM batches WHERE account_id = ? AND idempotency_key = ?`,
    );
    const getById = db.prepare<[string], BatchRow>(`SELECT ${BATCH_READ} FROM batches WHERE id = ?`);
    const setItem = db.prepare<[ItemState, string | null, string, number], unknown>(
      "UPDATE batch_items SET state = ?, error_code = ? WHERE batch_id = ? AND idx = ? AND state = 'pending'",
    );
    const countItem = db.prepare<[number, number, string], BatchRow>(
      `UPDATE batches SET succeeded = succeeded + ?, failed = failed + ? WHERE id = ? RETURNING ${BATCH_READ}`,
    );
    // The webhook is made due in the step that finishes the batch: no crash can separate the two.
    const finish = db.prepare<[BatchStatus, number, number, string], unknown>(
      'UPDATE batches SET status = ?, finished_at = ?, webhook_state = CASE WHEN webhook_url IS NULL THEN NULL ' +
        "ELSE 'due' END, webhook_next_at = ? WHERE id = ?",
    );
    const pendingItems = db.prepare<[string], ItemRow>(
      'SELECT idx, name, file, type, fingerprint, spec, state, error_code, code_id FROM batch_items WHERE ' +
        "batch_id = ? AND state = 'pending' ORDER BY idx",
    );
    const cancelItems = db.prepare<[string], unknown>(
      "UPDATE batch_items SET state = 'cancelled' WHERE batch_id = ? AND state = 'pending'",
    );
    // A cancel finishes the batch: its webhook (batch.cancelled) is made due in the same step.
    const cancelBatch = db.prepare<[number, number, number, string], unknown>(
      `UPDATE batches SET cancelled = cancelled + ?, status = 'cancelled', finished_at = ?,
         webhook_state = CASE WHEN webhook_url IS NULL THEN NULL ELSE 'due' END, webhook_next_at = ? WHERE id = ?`,
    );
    const removeItems = db.prepare<[string], unknown>('DELETE FROM batch_items WHERE batch_id = ?');
    const removeBatch = db.prepare<[string], unknown>('DELETE FROM batches WHERE id = ?');

    this.#get = db.prepare<[string, string], BatchRow>(
      `SELECT ${BATCH_READ} FROM batches WHERE id = ? AND account_id = ?`,
    );
    this.#getById = getById;
    this.#byKey = byKey;
    this.#list = db.prepare<[string, number], BatchRow>(
      `SELECT ${BATCH_READ} FROM batches WHERE account_id = ? ORDER BY rowid DESC LIMIT ?`,
    );
    this.#listBefore = db.prepare<[string, string, number], BatchRow>(
      `SELECT ${BATCH_READ} FROM batches
       WHERE account_id = ? AND rowid < (SELECT rowid FROM batches WHERE id = ?) ORDER BY rowid DESC LIMIT ?`,
    );
    this.#inFlight = db.prepare<[string], { n: number }>(
      "SELECT count(*) AS n FROM batches WHERE account_id = ? AND status IN ('queued', 'running')",
    );
    this.#items = db.prepare<[string, number, number], ItemRow>(
      'SELECT idx, name, file, type, fingerprint, spec, state, error_code, code_id FROM batch_items WHERE ' +
        'batch_id = ? AND idx >= ? AND idx < ? ORDER BY idx',
    );
    this.#markRunning = db.prepare<[number, string], unknown>(
      "UPDATE batches SET status = 'running', started_at = coalesce(started_at, ?) WHERE id = ? AND status = 'queued'",
    );
    this.#unfinished = db.prepare<[number], { id: string }>(
      "SELECT id FROM batches WHERE status IN ('queued', 'running') ORDER BY rowid LIMIT ?",
    );
    this.#finishedBefore = db.prepare<[number, number], { id: string }>(
      'SELECT id FROM batches WHERE finished_at IS NOT NULL AND finished_at < ? ORDER BY finished_at LIMIT ?',
    );

    this.#dueWebhooks = db.prepare<[number, number], { id: string }>(
      "SELECT id FROM batches WHERE webhook_state = 'due' AND webhook_next_at <= ? ORDER BY webhook_next_at LIMIT ?",
    );
    this.#claimWebhook = db.prepare<[number, string, number], BatchRow & { webhook_attempts: number }>(
      `UPDATE batches SET webhook_next_at = ? WHERE id = ? AND webhook_state = 'due' AND webhook_next_at <= ? ` +
        `RETURNING ${BATCH_READ}`,
    );
    this.#settleWebhook = db.prepare<[string, number, number | null, string | null, string], unknown>(
      'UPDATE batches SET webhook_state = ?, webhook_attempts = ?, webhook_next_at = ?, webhook_error = ? ' +
        "WHERE id = ? AND webhook_state = 'due'",
    );

    const insertSecret = db.prepare<[string, string], unknown>(
      'INSERT OR IGNORE INTO webhook_secrets (account_id, secret) VALUES (?, ?)',
    );
    const selectSecret = db.prepare<[string], { secret: string }>(
      'SELECT secret FROM webhook_secrets WHERE account_id = ?',
    );
    this.#webhookSecret = db.transaction((accountId: string): string => {
      insertSecret.run(accountId, newWebhookSecret());
      return selectSecret.get(accountId)!.secret;
    });
    const selectSecrets = db.prepare<
      [string],
      { secret: string; previous_secret: string | null; previous_until: number | null }
    >('SELECT secret, previous_secret, previous_until FROM webhook_secrets WHERE account_id = ?');
    this.#signingSecrets = db.transaction((accountId: string, now: number): string[] => {
      insertSecret.run(accountId, newWebhookSecret());
      const row = selectSecrets.get(accountId)!;
      return signingSecretsAt(row.secret, row.previous_secret, row.previous_until, now);
    });
    const rotate = db.prepare<[number, string, string], { secret: string }>(
      'UPDATE webhook_secrets SET previous_secret = secret, previous_until = ?, secret = ? WHERE account_id = ' +
        '? RETURNING secret',
    );
    this.#rotateSecret = db.transaction((accountId: string, previousUntil: number): string => {
      insertSecret.run(accountId, newWebhookSecret());
      return rotate.get(previousUntil, newWebhookSecret(), accountId)!.secret;
    });

    this.#create = db.transaction((batch: Batch, items: readonly BatchItem[]): { batch: Batch; created: boolean } => {
      if (batch.idempotencyKey !== undefined) {
        const existing = byKey.get(batch.accountId, batch.idempotencyKey);
        if (existing) return { batch: toBatch(existing), created: false };
      }
      insertBatch.run({
        id: batch.id,
        account_id: batch.accountId,
        plan: batch.plan,
        status: batch.status,
        total: batch.total,
        period: batch.period,
        created_at: batch.createdAt.getTime(),
        webhook_url: batch.webhookUrl ?? null,
        idempotency_key: batch.idempotencyKey ?? null,
        request_hash: batch.requestHash,
      });
      for (const item of items)
        insertItem.run(
          batch.id,
          item.index,
          item.name ?? null,
          item.file,
          item.type,
          item.fingerprint,
          JSON.stringify(item.spec),
          item.codeId ?? null,
        );
      return { batch, created: true };
    });
    this.#finishItems = db.transaction(
      (batchId: string, items: readonly port.FinishedItem[], at: number): { moved: number; batch: Batch } => {
        let succeeded = 0;
        let failed = 0;
        for (const item of items) {
          if (setItem.run(item.state, item.errorCode ?? null, batchId, item.index).changes !== 1) continue;
          if (item.state === 'succeeded') succeeded++;
          else failed++;
        }
        const moved = succeeded + failed;
        if (moved === 0) return { moved, batch: toBatch(getById.get(batchId)!) };
        const row = countItem.get(succeeded, failed, batchId)!;
        const done = row.status === 'cancelled' ? undefined : finishedStatus(row);
        if (done) {
          finish.run(done, at, at, batchId);
          return { moved, batch: toBatch({ ...row, status: done, finished_at: at }) };
        }
        return { moved, batch: toBatch(row) };
      },
    );
    this.#cancel = db.transaction((accountId: string, id: string, at: number) => {
      const row = this.#get.get(id, accountId);
      if (!row) return undefined;
      const pending = pendingItems.all(id).map(toItem);
      if (pending.length > 0) {
        cancelItems.run(id);
        cancelBatch.run(pending.length, at, at, id);
      }
      return { batch: toBatch(getById.get(id)!), cancelled: pending };
    });
    this.#remove = db.transaction((id: string) => {
      removeItems.run(id);
      return removeBatch.run(id).changes === 1;
    });
  }

  async create(batch: Batch, items: readonly BatchItem[]): Promise<{ batch: Batch; created: boolean }> {
    return this.#create.immediate(batch, items);
  }

  async get(accountId: string, id: string): Promise<Batch | undefined> {
    const row = this.#get.get(id, accountId);
    return row && toBatch(row);
  }

  async getById(id: string): Promise<Batch | undefined> {
    const row = this.#getById.get(id);
    return row && toBatch(row);
  }

  async byIdempotencyKey(accountId: string, key: string): Promise<Batch | undefined> {
    const row = this.#byKey.get(accountId, key);
    return row && toBatch(row);
  }

  async list(accountId: string, options: { limit: number; before?: string | undefined }): Promise<port.BatchPage> {
    // One more than asked: whether it comes back says if there is a next page.
    const rows =
      options.before === undefined
        ? this.#list.all(accountId, options.limit + 1)
        : this.#listBefore.all(accountId, options.before, options.limit + 1);
    const batches = rows.slice(0, options.limit).map(toBatch);
    return { batches, next: rows.length > options.limit ? batches.at(-1)?.id : undefined };
  }

  async inFlight(accountId: string): Promise<number> {
    return this.#inFlight.get(accountId)!.n;
  }

  async items(batchId: string, from: number, to: number): Promise<BatchItemState[]> {
    return this.#items.all(batchId, from, to).map(toItem);
  }

  async markRunning(batchId: string, at: Date): Promise<void> {
    this.#markRunning.run(at.getTime(), batchId);
  }

  async finishItems(
    batchId: string,
    items: readonly port.FinishedItem[],
    at: Date,
  ): Promise<{ moved: number; batch: Batch }> {
    return this.#finishItems.immediate(batchId, items, at.getTime());
  }

  async cancel(accountId: string, id: string, at: Date): Promise<{ batch: Batch; cancelled: BatchItem[] } | undefined> {
    return this.#cancel.immediate(accountId, id, at.getTime());
  }

  async remove(batchId: string): Promise<boolean> {
    return this.#remove.immediate(batchId);
  }

  async unfinished(limit: number): Promise<string[]> {
    return this.#unfinished.all(limit).map((row) => row.id);
  }

  async webhookSecret(accountId: string): Promise<string> {
    return this.#webhookSecret.immediate(accountId);
  }

  async webhookSigningSecrets(accountId: string, now: Date): Promise<string[]> {
    return this.#signingSecrets.immediate(accountId, now.getTime());
  }

  async rotateWebhookSecret(accountId: string, previousUntil: Date): Promise<string> {
    return this.#rotateSecret.immediate(accountId, previousUntil.getTime());
  }

  async dueWebhooks(now: Date, limit: number): Promise<string[]> {
    return this.#dueWebhooks.all(now.getTime(), limit).map((row) => row.id);
  }

  async claimWebhook(batchId: string, now: Date, leaseMs: number): Promise<port.DueWebhook | undefined> {
    const row = this.#claimWebhook.get(now.getTime() + leaseMs, batchId, now.getTime());
    return row && { batch: toBatch(row), attempts: row.webhook_attempts };
  }

  async settleWebhook(batchId: string, outcome: port.WebhookOutcome): Promise<void> {
    const { state, nextAt, error } = webhookAfter(outcome);
    this.#settleWebhook.run(state, outcome.attempts, nextAt?.getTime() ?? null, error, batchId);
  }

  async finishedBefore(before: Date, limit: number): Promise<string[]> {
    return this.#finishedBefore.all(before.getTime(), limit).map((row) => row.id);
  }
}
