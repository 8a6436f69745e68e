// The `domain.suspended` event: told to the account's webhook endpoints that subscribe to it, signed the Standard
// Webhooks way.
import type { CustomDomain } from '../domain/custom-domain.js';
import type { BatchStore } from '../domain/ports/batch-store.js';
import type { ScanWebhookStore } from '../domain/ports/scan-webhooks.js';
import type { WebhookSender } from '../domain/ports/webhook-sender.js';
import { webhookSignature } from './batches/batch-webhook.js';

export interface DomainWebhookDeps {
  scanWebhooks: Pick<ScanWebhookStore, 'list'>;
  /** The per-account secret the batch and scan webhooks use. */
  secrets: Pick<BatchStore, 'webhookSigningSecrets'>;
  sender: WebhookSender;
  clock: () => Date;
  log?: { warn(obj: object, msg: string): void };
}

export function domainSuspendedBody(domain: CustomDomain, at: Date): string {
  return JSON.stringify({
    type: 'domain.suspended',
    timestamp: at.toISOString(),
    data: {
      id: domain.id,
      hostname: domain.hostname,
      status: domain.status,
      problem: domain.lastCheck?.problem ?? null,
    },
  });
}

/**
 * One attempt per subscribed endpoint (the suspension itself is on the domain for the owner to read); failures are
 * logged.
 */
export async function tellDomainSuspended(deps: DomainWebhookDeps, domain: CustomDomain): Promise<number> {
  const endpoints = (await deps.scanWebhooks.list(domain.accountId)).filter((e) =>
    e.events.includes('domain.suspended'),
  );
  if (endpoints.length === 0) return 0;
  const at = deps.clock();
  const body = domainSuspendedBody(domain, at);
  const id = `msg_${domain.id}_suspended_${at.getTime()}`;
  const timestamp = Math.floor(at.getTime() / 1000);
  const signature = webhookSignature(
    await deps.secrets.webhookSigningSecrets(domain.accountId, at),
    id,
    timestamp,
    body,
  );
  let delivered = 0;
  for (const endpoint of endpoints) {
    try {
      const status = await deps.sender.send(
        endpoint.url,
        { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature },
        body,
      );
      if (status >= 200 && status < 300) delivered++;
      else deps.log?.warn({ webhookId: endpoint.id, status }, 'domain.suspended webhook answered with an error');
    } catch (error) {
      deps.log?.warn({ webhookId: endpoint.id, err: error }, 'domain.suspended webhook not delivered');
    }
  }
  return delivered;
}
