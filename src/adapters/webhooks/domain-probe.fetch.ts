// DomainProbe over fetch: GET http://<hostname>/.well-known/qrm-domain/<token> under the webhook address rules
// (resolved once, private addresses refused, pinned).
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { VERIFICATION_PATH } from '../../domain/custom-domain.js';
import type { DomainProbe } from '../../domain/ports/domain-probe.js';
import { FetchWebhookSender, type ResolvedAddress, type Resolve } from './webhook-sender.fetch.js';

const TIMEOUT_MS = 5_000;
/** The answer is a 32-character token: anything much longer is not ours. */
const MAX_BODY_BYTES = 1_024;

export interface FetchDomainProbeOptions {
  /** The operator's webhook rule (WEBHOOK_ALLOW_PRIVATE): loopback and private addresses only when allowed. */
  allowPrivate: boolean;
  /** Name resolution (default the system's); tests answer for hostnames no DNS knows. */
  resolve?: Resolve;
  /**
   * The port to connect to (default 80, what `http://<hostname>/` means); tests point it at a service listening
   * elsewhere.
   */
  port?: number;
  userAgent?: string;
}

function pinnedLookup(pinned: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) (callback as unknown as (error: null, addresses: ResolvedAddress[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
}

async function boundedText(res: Response): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      break;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export class FetchDomainProbe implements DomainProbe {
  readonly #allowPrivate: boolean;
  readonly #resolve: Resolve;
  readonly #port: number;
  readonly #userAgent: string;
  /** The webhook sender's own list of refused address ranges (one rule for every outbound call). */
  readonly #rules = new FetchWebhookSender({ allowPrivate: false });

  constructor(options: FetchDomainProbeOptions) {
    this.#allowPrivate = options.allowPrivate;
    this.#resolve = options.resolve ?? ((hostname) => dnsLookup(hostname, { all: true }));
    this.#port = options.port ?? 80;
    this.#userAgent = options.userAgent ?? 'QR-Manager-Domain-Check';
  }

  async check(hostname: string, token: string): Promise<string | null> {
    let addresses: ResolvedAddress[];
    try {
      addresses =
        isIP(hostname) !== 0 ? [{ address: hostname, family: isIP(hostname) }] : await this.#resolve(hostname);
    } catch {
      return `${hostname} does not resolve`;
    }
    if (addresses.length === 0) return `${hostname} has no address`;
    if (!this.#allowPrivate && addresses.some(({ address }) => this.#rules.isRefused(address))) {
      return `${hostname} resolves to a private or loopback address`;
    }
    const url = new URL(`http://${hostname}${VERIFICATION_PATH}${token}`);
    if (this.#port !== 80) url.port = String(this.#port);
    const { Agent } = await import('undici'); // loaded on the first check, not at start-up
    const dispatcher = new Agent({ connect: { lookup: pinnedLookup(addresses[0]!) } });
    try {
      const res = await fetch(url, {
        headers: { 'user-agent': this.#userAgent },
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS),
        ...({ dispatcher } as object),
      });
      const body = await boundedText(res);
      if (res.status !== 200)
        return `${url.origin}${VERIFICATION_PATH}… answered HTTP ${res.status}, not this service's token`;
      return body.trim() === token
        ? null
        : `${url.origin}${VERIFICATION_PATH}… answered, but not with this domain's token (is it routed to this ` +
            `service?)`;
    } catch (error) {
      return `${hostname} could not be reached (${error instanceof Error ? error.message : String(error)})`;
    } finally {
      void dispatcher.close();
    }
  }
}
