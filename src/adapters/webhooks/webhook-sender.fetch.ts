// WebhookSender over fetch: resolves the target once, refuses private, loopback, link-local and IPv4-in-IPv6 addresses
// (SSRF), and connects to that very address.
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { BlockList, isIP } from 'node:net';
import type { WebhookSender } from '../../domain/ports/webhook-sender.js';

const TIMEOUT_MS = 10_000;

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Name resolution, injectable so tests can answer for names no DNS knows. */
export type Resolve = (hostname: string) => Promise<ResolvedAddress[]>;

const systemResolve: Resolve = (hostname) => dnsLookup(hostname, { all: true });

/** Addresses a webhook must not reach from inside our network. */
function privateRanges(): BlockList {
  const list = new BlockList();
  for (const [net, prefix] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ] as const) {
    list.addSubnet(net, prefix, 'ipv4');
  }
  for (const [net, prefix] of [
    ['::', 128],
    ['::1', 128],
    ['fc00::', 7],
    ['fe80::', 10],
    ['fec0::', 10],
    ['ff00::', 8],
    ['100::', 64],
    // Every form that carries an IPv4 address inside IPv6, whatever the IPv4 address: each can reach a private
    // IPv4 host through a translator or tunnel, and none is a webhook receiver's own address.
    ['::', 96], // IPv4-compatible (deprecated)
    ['::ffff:0:0', 96], // IPv4-mapped
    ['::ffff:0:0:0', 96], // IPv4-translated (SIIT)
    ['64:ff9b::', 96], // NAT64, well-known prefix
    ['64:ff9b:1::', 48], // NAT64, local-use prefixes
    ['2002::', 16], // 6to4
    ['2001::', 32], // Teredo
  ] as const)
    list.addSubnet(net, prefix, 'ipv6');
  return list;
}

export class WebhookTargetRefused extends Error {
  override name = 'WebhookTargetRefused';
}

/**
 * A connect-time lookup that answers only the address already checked: no second DNS answer can move the connection
 * elsewhere.
 */
function pinnedLookup(pinned: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) (callback as unknown as (error: null, addresses: ResolvedAddress[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
}

export class FetchWebhookSender implements WebhookSender {
  readonly #allowPrivate: boolean;
  readonly #resolve: Resolve;
  readonly #blocked = privateRanges();
  /** Receivers can tell our calls apart (and allow-list them) by it: `QR-Manager-Webhooks/<version>`. */
  readonly #userAgent: string;

  constructor(options: { allowPrivate: boolean; resolve?: Resolve; userAgent?: string }) {
    this.#userAgent = options.userAgent ?? 'QR-Manager-Webhooks';
    this.#allowPrivate = options.allowPrivate;
    this.#resolve = options.resolve ?? systemResolve;
  }

  /** True for every address a webhook must not be sent to (unless the operator allows private targets). */
  isRefused(address: string): boolean {
    const family = isIP(address);
    return family === 0 || this.#blocked.check(address, family === 6 ? 'ipv6' : 'ipv4');
  }

  /** The one address the delivery will connect to, checked. */
  async #target(url: URL): Promise<ResolvedAddress> {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const family = isIP(host);
    const addresses = family !== 0 ? [{ address: host, family }] : await this.#resolve(host);
    if (addresses.length === 0) throw new Error(`webhook target ${url.host} has no address`);
    if (!this.#allowPrivate) {
      for (const { address } of addresses) {
        if (this.isRefused(address))
          throw new WebhookTargetRefused(
            `webhook target ${url.host} resolves to a private or loopback address (IPv4-in-IPv6 forms included)`,
          );
      }
    }
    return addresses[0]!;
  }

  async send(url: string, headers: Record<string, string>, body: string): Promise<number> {
    const target = new URL(url);
    const pinned = await this.#target(target);
    const { Agent } = await import('undici'); // loaded on the first webhook, not at start-up
    // The connection goes to the address checked above; TLS still verifies the certificate for the URL's host name.
    const dispatcher = new Agent({ connect: { lookup: pinnedLookup(pinned) } });
    try {
      // No redirects: a 3xx could point anywhere, private addresses included.
      const res = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': this.#userAgent, ...headers },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS),
        // Node's fetch takes an undici dispatcher (not in the DOM RequestInit type).
        ...({ dispatcher } as object),
      });
      await res.body?.cancel();
      return res.status;
    } finally {
      void dispatcher.close();
    }
  }
}
