// Builds the scan webhooks' dispatcher for the process that runs the background jobs (the embedded API, or the jobs
// process).
import type { AdapterLog } from '../adapters/adapter-log.js';
import type { StoreAdapters } from '../adapters/contract.js';
import type { WebhookSender } from '../domain/ports/webhook-sender.js';
import { ScanWebhookDispatcher } from '../services/scan-webhooks.js';

/** The scan webhooks' dispatcher, where the account secrets are (the batch store holds them). */
export function scanWebhookDispatcher(
  stores: Pick<StoreAdapters, 'scanEvents' | 'scanWebhooks' | 'batches'>,
  sender: WebhookSender,
  clock: () => Date,
  log: AdapterLog,
): ScanWebhookDispatcher | undefined {
  if (!stores.batches) return undefined;
  return new ScanWebhookDispatcher({
    scanEvents: stores.scanEvents,
    scanWebhooks: stores.scanWebhooks,
    secrets: stores.batches,
    sender,
    clock,
    log,
  });
}
