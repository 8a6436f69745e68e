// Scan webhooks: an account's endpoints (create, list, delete), and the dispatcher that tells them of scans, coalesced,
// signed and retried.
import { randomBytes } from 'node:crypto';
import { ApiError } from '../domain/errors.js';
import type { BatchStore } from '../domain/ports/batch-store.js';
import type {
  ScanEventSource,
  ScanMessage,
  ScanWebhookEndpoint,
  ScanWebhookEvent,
  ScanWebhookStore,
} from '../domain/ports/scan-webhooks.js';
import type { WebhookSender } from '../domain/ports/webhook-sender.js';
import { DEVICE_CLASSES, type DeviceClass } from '../domain/scan.js';
import { webhookSignature } from './batches/batch-webhook.js';

/** Endpoints an account may register. */
export const SCAN_WEBHOOK_LIMIT = 5;

export async function createScanWebhook(
  deps: { scanWebhooks: ScanWebhookStore; clock: () => Date },
  accountId: string,
  input: { url: string; events: ScanWebhookEvent[] },
): Promise<ScanWebhookEndpoint> {
  const created = await deps.scanWebhooks.create(
    { accountId, url: input.url, events: [...new Set(input.events)], createdAt: deps.clock() },
    SCAN_WEBHOOK_LIMIT,
  );
  if (created === 'limit_reached') {
    throw new ApiError(
      'webhook_limit_reached',
      `an account may register at most ${SCAN_WEBHOOK_LIMIT} scan webhooks; delete one first`,
      {
        extensions: { limit: SCAN_WEBHOOK_LIMIT },
      },
    );
  }
  return created;
}

export async function deleteScanWebhook(
  deps: { scanWebhooks: ScanWebhookStore },
  accountId: string,
  id: string,
): Promise<void> {
  if (!(await deps.scanWebhooks.remove(accountId, id)))
    throw new ApiError('not_found', 'no such webhook on this account');
}

export interface ScanWebhookDispatcherDeps {
  scanEvents: ScanEventSource;
  scanWebhooks: Pick<ScanWebhookStore, 'list'>;
  /** The per-account secret, shared with the batch webhooks. */
  secrets: Pick<BatchStore, 'webhookSigningSecrets'>;
  sender: WebhookSender;
  clock: () => Date;
  /**
   * Waits before each retry of a message (default 5 s, 30 s, 2 min, 10 min, 30 min); after the last, it is given up.
   */
  backoffMs?: readonly number[];
  log?: { warn(obj: object, msg: string): void };
}

const DEFAULT_BACKOFF_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000];
/** Accounts fanned out per call; a tick fans out until none wait or this many calls were made. */
const TAKE_LIMIT = 1_000;
const TAKES_PER_TICK = 20;

export interface CodeScannedPayload {
  type: 'code.scanned';
  timestamp: string;
  data: {
    from: string;
    to: string;
    scans: number;
    codes: Array<{ id: string; scans: number; devices: Record<DeviceClass, number> }>;
  };
}

const allDevices = (devices: Partial<Record<DeviceClass, number>>) =>
  Object.fromEntries(DEVICE_CLASSES.map((d) => [d, devices[d] ?? 0])) as Record<DeviceClass, number>;

/** The message's body: the same bytes on every attempt (it is made from what was sealed, never from the clock). */
export function codeScannedBody(message: ScanMessage): string {
  const codes = message.codes.map((code) => ({
    id: code.codeId,
    scans: code.scans,
    devices: allDevices(code.devices),
  }));
  const payload: CodeScannedPayload = {
    type: 'code.scanned',
    timestamp: message.to.toISOString(),
    data: {
      from: message.from.toISOString(),
      to: message.to.toISOString(),
      scans: codes.reduce((n, c) => n + c.scans, 0),
      codes,
    },
  };
  return JSON.stringify(payload);
}

/**
 * Runs in the process that runs the background jobs, once a second (`tick`). Each tick moves the scans the recorder
 * counted since the last to each endpoint of their account, then sends each endpoint at most one message: its retry
 * when due, else one message sealed from every scan waiting for it. While a message is being retried, new scans wait
 * for the next one, so no scan is told twice under two ids. Never on the redirect path. Everything between a scan and
 * its delivery (the waiting scans, the message being retried and its attempts) is stored with the scans
 * (ScanEventSource), not in this process: a restart resumes where it stopped, and a message delivered just before a
 * crash, not yet marked, is sent once more under the same webhook-id (receivers drop a repeated id).
 */
export class ScanWebhookDispatcher {
  readonly #deps: ScanWebhookDispatcherDeps;

  constructor(deps: ScanWebhookDispatcherDeps) {
    this.#deps = deps;
  }

  async tick(): Promise<number> {
    const endpointsOf = new Map<string, Promise<ScanWebhookEndpoint[]>>();
    const endpoints = (accountId: string) => {
      if (!endpointsOf.has(accountId)) endpointsOf.set(accountId, this.#deps.scanWebhooks.list(accountId));
      return endpointsOf.get(accountId)!;
    };
    for (let call = 0; call < TAKES_PER_TICK; call++) {
      const accounts = await this.#deps.scanEvents.waitingAccounts(TAKE_LIMIT);
      for (const accountId of accounts) {
        const listening = (await endpoints(accountId)).filter((e) => e.events.includes('code.scanned'));
        await this.#deps.scanEvents.fanOut(
          accountId,
          listening.map((e) => e.id),
          this.#deps.clock(),
        );
      }
      if (accounts.length < TAKE_LIMIT) break;
    }
    const now = this.#deps.clock();
    const busy = await this.#deps.scanEvents.busyEndpoints();
    const sends = busy.map(async ({ endpointId, accountId }) => {
      const endpoint = (await endpoints(accountId)).find((e) => e.id === endpointId);
      // Deleted since its scans were fanned out: nothing more is sent to it.
      if (!endpoint) {
        await this.#deps.scanEvents.drop(accountId, endpointId);
        return false;
      }
      return this.#attempt(endpoint, now);
    });
    return (await Promise.all(sends)).filter(Boolean).length;
  }

  /** True when a message was sent (whatever the answer). */
  async #attempt(endpoint: ScanWebhookEndpoint, now: Date): Promise<boolean> {
    const message = await this.#deps.scanEvents.seal(
      endpoint.accountId,
      endpoint.id,
      `msg_${randomBytes(12).toString('base64url')}`,
      now,
    );
    if (!message || message.nextAt.getTime() > now.getTime()) return false;
    const body = codeScannedBody(message);
    const timestamp = Math.floor(now.getTime() / 1000);
    let outcome: 'delivered' | 'retry' | 'refused';
    try {
      const secrets = await this.#deps.secrets.webhookSigningSecrets(endpoint.accountId, now);
      const status = await this.#deps.sender.send(
        endpoint.url,
        {
          'webhook-id': message.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': webhookSignature(secrets, message.id, timestamp, body),
        },
        body,
      );
      outcome = status >= 200 && status < 300 ? 'delivered' : 'retry';
      if (outcome === 'retry')
        this.#deps.log?.warn(
          { webhookId: endpoint.id, status, attempt: message.attempts + 1 },
          'scan webhook answered with an error; will retry',
        );
    } catch (error) {
      // A target the operator does not allow stays refused, as for batch webhooks.
      outcome = error instanceof Error && error.name === 'WebhookTargetRefused' ? 'refused' : 'retry';
      this.#deps.log?.warn(
        { webhookId: endpoint.id, err: error },
        outcome === 'refused' ? 'scan webhook target refused' : 'scan webhook not delivered; will retry',
      );
    }
    const attempts = message.attempts + 1;
    const waits = this.#deps.backoffMs ?? DEFAULT_BACKOFF_MS;
    const retry = outcome === 'retry' && attempts <= waits.length;
    if (outcome !== 'delivered' && !retry)
      this.#deps.log?.warn({ webhookId: endpoint.id, attempts }, 'scan webhook message given up');
    await this.#deps.scanEvents.settle(
      endpoint.accountId,
      endpoint.id,
      message.id,
      retry ? new Date(now.getTime() + waits[attempts - 1]!) : undefined,
    );
    return true;
  }
}
