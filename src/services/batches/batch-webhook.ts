// Use case: tell the caller a batch finished — a Standard Webhooks message signed with the account's secret, retried with backoff.
import { createHmac } from 'node:crypto';
import type { Batch } from '../../domain/batches/batch.js';
import type { BatchStore } from '../../domain/ports/batch-store.js';
import type { WebhookSender } from '../../domain/ports/webhook-sender.js';
import { batchView, type BatchViewJson } from './batch-view.js';

export interface BatchWebhookDeps {
  batches: Pick<BatchStore, 'webhookSecret'>;
  sender: WebhookSender;
  clock: () => Date;
  /** Waits between attempts (tests pass short ones); default 1 s, 10 s, 1 min, 5 min, 30 min. */
  backoffMs?: readonly number[];
  /** Where the waiting happens (timers that do not hold the process open). */
  sleep: (ms: number) => Promise<void>;
  log?: { warn(obj: object, msg: string): void };
}

const DEFAULT_BACKOFF_MS = [1_000, 10_000, 60_000, 300_000, 1_800_000];

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256 over `id.timestamp.body`, keyed by the secret's bytes after `whsec_`. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export function webhookBody(batch: Batch, view: BatchViewJson, at: Date): string {
  return JSON.stringify({ type: `batch.${batch.status}`, timestamp: at.toISOString(), data: view });
}

/**
 * One message per finished batch: its id stays the same across attempts, so receivers deduplicate
 * retries (webhook-id). A 2xx ends it; anything else is retried until the backoff list runs out.
 */
export async function deliverBatchWebhook(deps: BatchWebhookDeps, batch: Batch): Promise<boolean> {
  const view = batchView(batch);
  if (!batch.webhookUrl) return false;
  const secret = await deps.batches.webhookSecret(batch.accountId);
  const id = `msg_${batch.id}`;
  const body = webhookBody(batch, view, deps.clock());
  const waits = deps.backoffMs ?? DEFAULT_BACKOFF_MS;
  for (let attempt = 0; attempt <= waits.length; attempt++) {
    if (attempt > 0) await deps.sleep(waits[attempt - 1]!);
    const timestamp = Math.floor(deps.clock().getTime() / 1000);
    try {
      const status = await deps.sender.send(
        batch.webhookUrl,
        { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signWebhook(secret, id, timestamp, body) },
        body,
      );
      if (status >= 200 && status < 300) return true;
      deps.log?.warn({ batchId: batch.id, status, attempt: attempt + 1 }, 'webhook answered with an error; retrying');
    } catch (error) {
      // A target the operator does not allow stays refused: no point asking again.
      const refused = error instanceof Error && error.name === 'WebhookTargetRefused';
      deps.log?.warn({ batchId: batch.id, err: error, attempt: attempt + 1 }, refused ? 'webhook target refused' : 'webhook not delivered; retrying');
      if (refused) return false;
    }
  }
  return false;
}

/** The onFinished hook of the renderers: delivery runs in the background, so the chunk goes on. */
export function webhookOnFinish(deps: BatchWebhookDeps): (batch: Batch) => Promise<void> {
  return async (batch) => {
    void deliverBatchWebhook(deps, batch).catch((error: unknown) => deps.log?.warn({ err: error, batchId: batch.id }, 'webhook delivery failed'));
  };
}

/** Timers that never keep a process alive on their own. */
export function unrefSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
