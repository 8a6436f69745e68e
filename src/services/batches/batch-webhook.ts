// Use case: tell the caller a batch finished — a Standard Webhooks message signed with the account's secret, retried
// with backoff from the store.
import { createHmac } from 'node:crypto';
import type { Batch } from '../../domain/batches/batch.js';
import type { BatchStore } from '../../domain/ports/batch-store.js';
import type { WebhookSender } from '../../domain/ports/webhook-sender.js';
import { batchView, type BatchViewJson } from './batch-view.js';

export interface BatchWebhookDeps {
  batches: Pick<BatchStore, 'webhookSigningSecrets' | 'dueWebhooks' | 'claimWebhook' | 'settleWebhook'>;
  sender: WebhookSender;
  clock: () => Date;
  /** Waits between attempts (tests pass short ones); default 1 s, 10 s, 1 min, 5 min, 30 min. */
  backoffMs?: readonly number[];
  log?: { warn(obj: object, msg: string): void };
}

const DEFAULT_BACKOFF_MS = [1_000, 10_000, 60_000, 300_000, 1_800_000];

/**
 * How long a claimed attempt hides the webhook from other processes: more than one send can take (its timeout is 10 s).
 */
const CLAIM_LEASE_MS = 60_000;

/** Due webhooks one sweep attempts, and how many of them at once. */
const SWEEP_LIMIT = 100;
const SWEEP_PARALLEL = 8;

/**
 * Standard Webhooks: `v1,` + base64 HMAC-SHA256 over `id.timestamp.body`, keyed by the secret's bytes after `whsec_`.
 */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * The `webhook-signature` header: one `v1,` signature per secret, space-separated (a rotation's overlap signs with
 * two).
 */
export function webhookSignature(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets.map((secret) => signWebhook(secret, id, timestamp, body)).join(' ');
}

/**
 * The event: its `timestamp` is when the batch finished (Standard Webhooks: the event's time), the same on every
 * attempt.
 * The `webhook-timestamp` header is the attempt's own time, which receivers hold against replays.
 */
export function webhookBody(batch: Batch, view: BatchViewJson): string {
  const at = batch.finishedAt ?? batch.createdAt;
  return JSON.stringify({ type: `batch.${batch.status}`, timestamp: at.toISOString(), data: view });
}

type AttemptResult = { result: 'delivered' } | { result: 'retry' | 'refused'; error: string };

async function send(deps: BatchWebhookDeps, batch: Batch, url: string, attempt: number): Promise<AttemptResult> {
  // The id stays the same across attempts (and processes), so receivers deduplicate retries by webhook-id.
  const id = `msg_${batch.id}`;
  const now = deps.clock();
  const secrets = await deps.batches.webhookSigningSecrets(batch.accountId, now);
  const body = webhookBody(batch, batchView(batch));
  const timestamp = Math.floor(now.getTime() / 1000);
  try {
    const status = await deps.sender.send(
      url,
      {
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': webhookSignature(secrets, id, timestamp, body),
      },
      body,
    );
    if (status >= 200 && status < 300) return { result: 'delivered' };
    deps.log?.warn({ batchId: batch.id, status, attempt }, 'webhook answered with an error; will retry');
    return { result: 'retry', error: `the target answered HTTP ${status}` };
  } catch (error) {
    // A target the operator does not allow stays refused: no point asking again.
    const refused = error instanceof Error && error.name === 'WebhookTargetRefused';
    deps.log?.warn(
      { batchId: batch.id, err: error, attempt },
      refused ? 'webhook target refused' : 'webhook not delivered; will retry',
    );
    return { result: refused ? 'refused' : 'retry', error: describe(error) };
  }
}

/** A network failure in words: fetch's own message is "fetch failed", its cause says what failed. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

/**
 * One attempt, when the webhook is due and no other process holds it; its outcome is stored before this
 * returns. Resolves with the time of the next attempt, or undefined when there is none to make here.
 */
export async function attemptBatchWebhook(deps: BatchWebhookDeps, batchId: string): Promise<Date | undefined> {
  const claim = await deps.batches.claimWebhook(batchId, deps.clock(), CLAIM_LEASE_MS);
  if (!claim) return undefined;
  const attempts = claim.attempts + 1;
  const outcome: AttemptResult = claim.batch.webhookUrl
    ? await send(deps, claim.batch, claim.batch.webhookUrl, attempts)
    : { result: 'refused', error: 'the batch has no webhookUrl' };
  if (outcome.result === 'delivered') {
    await deps.batches.settleWebhook(batchId, { attempts, delivered: true });
    return undefined;
  }
  const waits = deps.backoffMs ?? DEFAULT_BACKOFF_MS;
  if (outcome.result === 'refused') {
    deps.log?.warn({ batchId, attempts }, 'webhook target refused; not sent');
    await deps.batches.settleWebhook(batchId, { attempts, delivered: false, refused: true, error: outcome.error });
    return undefined;
  }
  if (attempts > waits.length) {
    deps.log?.warn({ batchId, attempts }, 'webhook given up');
    await deps.batches.settleWebhook(batchId, { attempts, delivered: false, error: outcome.error });
    return undefined;
  }
  const retryAt = new Date(deps.clock().getTime() + waits[attempts - 1]!);
  await deps.batches.settleWebhook(batchId, { attempts, delivered: false, retryAt, error: outcome.error });
  return retryAt;
}

/**
 * The finishing process's path: attempts at once, then retries on schedule while it lives. Should it die,
 * the stored schedule stands and the sweep (a background job) makes the next attempts.
 */
export async function deliverBatchWebhook(
  deps: BatchWebhookDeps & { sleep: (ms: number) => Promise<void> },
  batchId: string,
): Promise<void> {
  const waits = deps.backoffMs ?? DEFAULT_BACKOFF_MS;
  for (let attempt = 0; attempt <= waits.length; attempt++) {
    const next = await attemptBatchWebhook(deps, batchId);
    if (!next) return;
    await deps.sleep(Math.max(0, next.getTime() - deps.clock().getTime()));
  }
}

/** The sweep: one attempt for each webhook that is due (after a crash, or a retry no live process is waiting for). */
export async function deliverDueWebhooks(deps: BatchWebhookDeps): Promise<number> {
  const ids = await deps.batches.dueWebhooks(deps.clock(), SWEEP_LIMIT);
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      await attemptBatchWebhook(deps, id).catch((error: unknown) =>
        deps.log?.warn({ err: error, batchId: id }, 'webhook attempt failed'),
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(SWEEP_PARALLEL, ids.length) }, worker));
  return ids.length;
}

/** The onFinished hook of the renderers: delivery runs in the background, so the chunk goes on. */
export function webhookOnFinish(
  deps: BatchWebhookDeps & { sleep: (ms: number) => Promise<void> },
): (batch: Batch) => Promise<void> {
  return async (batch) => {
    if (!batch.webhookUrl) return;
    void deliverBatchWebhook(deps, batch.id).catch((error: unknown) =>
      deps.log?.warn({ err: error, batchId: batch.id }, 'webhook delivery failed'),
    );
  };
}

/** Timers that never keep a process alive on their own. */
export function unrefSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
