// Ports: the accounts' scan webhook endpoints (system of record), and the scans waiting to be told to them (counted and
// kept with the scans).
import type { AccountScans } from '../scan.js';

/** `code.scanned`: the scans since the last message; `domain.suspended`: a custom domain whose DNS proof was gone. */
export const SCAN_WEBHOOK_EVENTS = ['code.scanned', 'domain.suspended'] as const;
export type ScanWebhookEvent = (typeof SCAN_WEBHOOK_EVENTS)[number];

export interface ScanWebhookEndpoint {
  id: string;
  accountId: string;
  url: string;
  events: ScanWebhookEvent[];
  createdAt: Date;
}

/**
 * Contract (test/contracts/scan-webhooks.contract.ts): `create` is atomic against `maxEndpoints` (past it,
 * `limit_reached` and nothing stored); every operation names the account (tenants never see each other's endpoints).
 */
export interface ScanWebhookStore {
  create(
    endpoint: Omit<ScanWebhookEndpoint, 'id'>,
    maxEndpoints: number,
  ): Promise<ScanWebhookEndpoint | 'limit_reached'>;
  /** Oldest first. */
  list(accountId: string): Promise<ScanWebhookEndpoint[]>;
  remove(accountId: string, id: string): Promise<boolean>;
}

/** One code's scans as counted: the total and the device split. */
export type CodeScans = AccountScans['codes'][number];

/** A message to one endpoint: the scans it carries, sealed at `to`; sent under the same `id` on every attempt. */
export interface ScanMessage {
  id: string;
  /** The scans since `from` (the previous message, or the first scan after a quiet spell) up to `to`. */
  from: Date;
  to: Date;
  codes: CodeScans[];
  /** Attempts made so far. */
  attempts: number;
  nextAt: Date;
}

/**
 * The scans waiting for the accounts' scan webhooks, stored where the scans are counted, so a restart loses none.
 * Contract (test/contracts/scan-events.contract.ts):
 * - the scan recorder counts every scan here, per account, in the same write as its statistics;
 * - `fanOut` moves an account's counted scans to each of the endpoints named, atomically and once (none named:
 *   dropped);
 * - `seal` answers the endpoint's message being delivered, else seals every scan waiting for it into a new message
 *   (`id`), else (nothing waiting) undefined and the endpoint is idle; scans fanned out meanwhile wait for the next;
 * - `settle` after an attempt: a `retryAt` keeps the message (one more attempt counted), none removes it; a stale id
 *   changes nothing.
 */
export interface ScanEventSource {
  /** Accounts with counted scans not yet fanned out (at most `limit`). */
  waitingAccounts(limit: number): Promise<string[]>;
  fanOut(accountId: string, endpointIds: readonly string[], at: Date): Promise<void>;
  /** Endpoints with scans waiting or a message being delivered. */
  busyEndpoints(): Promise<Array<{ endpointId: string; accountId: string }>>;
  /** The endpoint is named with its account: a store may keep an endpoint's scans beside its account's. */
  seal(accountId: string, endpointId: string, messageId: string, at: Date): Promise<ScanMessage | undefined>;
  settle(accountId: string, endpointId: string, messageId: string, retryAt: Date | undefined): Promise<void>;
  /** A deleted endpoint: its scans and message are forgotten. */
  drop(accountId: string, endpointId: string): Promise<void>;
}
