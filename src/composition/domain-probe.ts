// The custom-domain check every process builds the same way: the webhook rule on private targets, and our User-Agent.
import { FetchDomainProbe } from '../adapters/webhooks/domain-probe.fetch.js';
import type { Config } from '../config.js';
import type { DomainProbe } from '../domain/ports/domain-probe.js';
import { serviceVersion } from './service-version.js';

export function createDomainProbe(config: Pick<Config, 'webhookAllowPrivate'>): DomainProbe {
  return new FetchDomainProbe({ allowPrivate: config.webhookAllowPrivate, userAgent: `QR-Manager-Domain-Check/${serviceVersion()}` });
}
