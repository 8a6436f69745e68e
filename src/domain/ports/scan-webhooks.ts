// Ports: the accounts' scan webhook endpoints (system of record), and the scans waiting to be told to them (counted with the scans).
import type { AccountScans } from '../scan.js';

export const SCAN_WEBHOOK_EVENTS = ['code.scanned'] as const;
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
  create(endpoint: Omit<ScanWebhookEndpoint, 'id'>, maxEndpoints: number): Promise<ScanWebhookEndpoint | 'limit_reached'>;
  /** Oldest first. */
  list(accountId: string): Promise<ScanWebhookEndpoint[]>;
  remove(accountId: string, id: string): Promise<boolean>;
}

/**
 * Contract (test/contracts/scan-webhooks.contract.ts): the scan recorder counts every scan here in the same write
 * as its statistics; `take` hands each counted scan out exactly once (up to `limit` accounts a call), then forgets it.
 */
export interface ScanEventSource {
  take(limit: number): Promise<AccountScans[]>;
}
