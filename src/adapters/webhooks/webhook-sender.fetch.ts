// WebhookSender over fetch: refuses private, loopback and link-local targets (SSRF) unless the operator allows them.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import type { WebhookSender } from '../../domain/ports/webhook-sender.js';

const TIMEOUT_MS = 10_000;

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
    ['192.168.0.0', 16],
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
    ['ff00::', 8],
    ['::ffff:0:0', 96],
  ] as const)
    list.addSubnet(net, prefix, 'ipv6');
  return list;
}

export class WebhookTargetRefused extends Error {
  override name = 'WebhookTargetRefused';
}

export class FetchWebhookSender implements WebhookSender {
  readonly #allowPrivate: boolean;
  readonly #blocked = privateRanges();

  constructor(options: { allowPrivate: boolean }) {
    this.#allowPrivate = options.allowPrivate;
  }

  async #assertPublic(url: URL): Promise<void> {
    if (this.#allowPrivate) return;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true });
    for (const { address, family } of addresses) {
      if (this.#blocked.check(address, family === 6 ? 'ipv6' : 'ipv4'))
        throw new WebhookTargetRefused(`webhook target ${url.host} resolves to a private or loopback address`);
    }
  }

  async send(url: string, headers: Record<string, string>, body: string): Promise<number> {
    const target = new URL(url);
    await this.#assertPublic(target);
    // No redirects: a 3xx could point anywhere, private addresses included.
    const res = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    await res.body?.cancel();
    return res.status;
  }
}
