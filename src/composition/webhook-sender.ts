// The webhook sender every process builds the same way: the operator's rule on private targets, and our User-Agent.
import { FetchWebhookSender } from '../adapters/webhooks/webhook-sender.fetch.js';
import type { Config } from '../config.js';
import { serviceVersion } from './service-version.js';

export function createWebhookSender(config: Pick<Config, 'webhookAllowPrivate'>): FetchWebhookSender {
  return new FetchWebhookSender({
    allowPrivate: config.webhookAllowPrivate,
    userAgent: `QR-Manager-Webhooks/${serviceVersion()}`,
  });
}
