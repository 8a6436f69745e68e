// Scan webhooks: an account's endpoints (create, list, delete), and the dispatcher that tells them of scans, coalesced, signed and retried.
import { randomBytes } from 'node:crypto';
import { ApiError } from '../domain/errors.js';
import type { BatchStore } from '../domain/ports/batch-store.js';
import type { ScanEventSource, ScanWebhookEndpoint, ScanWebhookEvent, ScanWebhookStore } from '../domain/ports/scan-webhooks.js';
import type { WebhookSender } from '../domain/ports/webhook-sender.js';
import { DEVICE_CLASSES, type AccountScans, type DeviceClass } from '../domain/scan.js';
import { signWebhook } from './batches/batch-webhook.js';

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
    throw new ApiError('webhook_limit_reached', `an account may register at most ${SCAN_WEBHOOK_LIMIT} scan webhooks; delete one first`, {
      extensions: { limit: SCAN_WEBHOOK_LIMIT },
    });
  }
  return created;
}

export async function deleteScanWebhook(deps: { scanWebhooks: ScanWebhookStore }, accountId: string, id: string): Promise<void> {
  if (!(await deps.scanWebhooks.remove(accountId, id))) throw new ApiError('not_found', 'no such webhook on this account');
}

export interface ScanWebhookDispatcherDeps {
  scanEvents: ScanEventSource;
  scanWebhooks: Pick<ScanWebhookStore, 'list'>;
  /** The per-account secret, shared with the batch webhooks. */
  secrets: Pick<BatchStore, 'webhookSecret'>;
  sender: WebhookSender;
  clock: () => Date;
  /** Waits before each retry of a message (default 5 s, 30 s, 2 min, 10 min, 30 min); after the last, it is given up. */
  backoffMs?: readonly number[];
  log?: { warn(obj: object, msg: string): void };
}

const DEFAULT_BACKOFF_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000];
/** Accounts taken from the source per call; a tick takes until the source is empty or this many calls were made. */
const TAKE_LIMIT = 1_000;
const TAKES_PER_TICK = 20;

type CodeCounts = { scans: number; devices: Record<DeviceClass, number> };

interface Message {
  id: string;
  body: string;
  attempts: number;
  nextAt: number;
}

interface EndpointState {
  endpoint: ScanWebhookEndpoint;
  /** Scans since the last message was made, per code. */
  pending: Map<string, CodeCounts>;
  since: Date;
  /** The message being delivered (retried with the same webhook-id until delivered or given up). */
  message?: Message | undefined;
}

export interface CodeScannedPayload {
  type: 'code.scanned';
  timestamp: string;
  data: { from: string; to: string; scans: number; codes: Array<{ id: string; scans: number; devices: Record<DeviceClass, number> }> };
}

const zeroDevices = () => Object.fromEntries(DEVICE_CLASSES.map((d) => [d, 0])) as Record<DeviceClass, number>;

/**
 * Runs in the process that runs the background jobs, once a second (`tick`). Each tick takes the scans the recorder
 * counted since the last (exactly once), adds them to each endpoint of the account, then sends each endpoint at most
 * one message: its retry when due, else one message carrying every scan since its last. While a message is being
 * retried, new scans wait for the next one, so no scan is told twice under two ids. Never on the redirect path.
 * What is held here (a message being retried, scans not yet sent) lives in this process: a restart loses it.
 */
export class ScanWebhookDispatcher {
  readonly #deps: ScanWebhookDispatcherDeps;
  readonly #endpoints = new Map<string, EndpointState>();

  constructor(deps: ScanWebhookDispatcherDeps) {
    this.#deps = deps;
  }

  async tick(): Promise<number> {
    for (let call = 0; call < TAKES_PER_TICK; call++) {
      const taken = await this.#deps.scanEvents.take(TAKE_LIMIT);
      for (const account of taken) await this.#add(account);
      if (taken.length < TAKE_LIMIT) break;
    }
    const now = this.#deps.clock();
    const sends = [...this.#endpoints.values()].map((state) => this.#attempt(state, now));
    return (await Promise.all(sends)).filter(Boolean).length;
  }

  async #add(account: AccountScans): Promise<void> {
    const endpoints = (await this.#deps.scanWebhooks.list(account.accountId)).filter((e) => e.events.includes('code.scanned'));
    for (const endpoint of endpoints) {
      let state = this.#endpoints.get(endpoint.id);
      if (!state) this.#endpoints.set(endpoint.id, (state = { endpoint, pending: new Map(), since: this.#deps.clock() }));
      state.endpoint = endpoint;
      for (const code of account.codes) {
        let counts = state.pending.get(code.codeId);
        if (!counts) state.pending.set(code.codeId, (counts = { scans: 0, devices: zeroDevices() }));
        counts.scans += code.scans;
        for (const device of DEVICE_CLASSES) counts.devices[device] += code.devices[device] ?? 0;
      }
    }
  }

  #nextMessage(state: EndpointState, now: Date): Message | undefined {
    if (state.pending.size === 0) return undefined;
    const codes = [...state.pending].map(([id, counts]) => ({ id, scans: counts.scans, devices: counts.devices }));
    const payload: CodeScannedPayload = {
      type: 'code.scanned',
      timestamp: now.toISOString(),
      data: { from: state.since.toISOString(), to: now.toISOString(), scans: codes.reduce((n, c) => n + c.scans, 0), codes },
    };
    state.pending = new Map();
    state.since = now;
    return { id: `msg_${randomBytes(12).toString('base64url')}`, body: JSON.stringify(payload), attempts: 0, nextAt: now.getTime() };
  }

  /** True when a message was sent (whatever the answer). */
  async #attempt(state: EndpointState, now: Date): Promise<boolean> {
    state.message ??= this.#nextMessage(state, now);
    const message = state.message;
    if (!message || message.nextAt > now.getTime()) {
      if (!message && state.pending.size === 0) this.#endpoints.delete(state.endpoint.id);
      return false;
    }
    const { endpoint } = state;
    const timestamp = Math.floor(now.getTime() / 1000);
    let outcome: 'delivered' | 'retry' | 'refused';
    try {
      const secret = await this.#deps.secrets.webhookSecret(endpoint.accountId);
      const status = await this.#deps.sender.send(
        endpoint.url,
        { 'webhook-id': message.id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signWebhook(secret, message.id, timestamp, message.body) },
        message.body,
      );
      outcome = status >= 200 && status < 300 ? 'delivered' : 'retry';
      if (outcome === 'retry')
        this.#deps.log?.warn({ webhookId: endpoint.id, status, attempt: message.attempts + 1 }, 'scan webhook answered with an error; will retry');
    } catch (error) {
      // A target the operator does not allow stays refused, as for batch webhooks.
      outcome = error instanceof Error && error.name === 'WebhookTargetRefused' ? 'refused' : 'retry';
      this.#deps.log?.warn(
        { webhookId: endpoint.id, err: error },
        outcome === 'refused' ? 'scan webhook target refused' : 'scan webhook not delivered; will retry',
      );
    }
    message.attempts++;
    const waits = this.#deps.backoffMs ?? DEFAULT_BACKOFF_MS;
    if (outcome === 'delivered' || outcome === 'refused' || message.attempts > waits.length) {
      if (outcome !== 'delivered') this.#deps.log?.warn({ webhookId: endpoint.id, attempts: message.attempts }, 'scan webhook message given up');
      state.message = undefined;
    } else {
      message.nextAt = now.getTime() + waits[message.attempts - 1]!;
    }
    return true;
  }
}
