// The custom-domain checks every process builds the same way: the DNS proof (the operator's nameservers), and the
// reachability check
// (the webhook rule on private targets, and our User-Agent).
import { DnsTxtLookup } from '../adapters/dns/txt-lookup.dns.js';
import { FetchDomainProbe } from '../adapters/webhooks/domain-probe.fetch.js';
import type { Config } from '../config.js';
import type { DomainProbe } from '../domain/ports/domain-probe.js';
import type { TxtLookup } from '../domain/ports/txt-lookup.js';
import { serviceVersion } from './service-version.js';

export function createDomainProbe(config: Pick<Config, 'webhookAllowPrivate'>): DomainProbe {
  return new FetchDomainProbe({
    allowPrivate: config.webhookAllowPrivate,
    userAgent: `QR-Manager-Domain-Check/${serviceVersion()}`,
  });
}

export function createTxtLookup(config: Pick<Config, 'dnsServers'>): TxtLookup {
  return new DnsTxtLookup({ servers: config.dnsServers });
}
