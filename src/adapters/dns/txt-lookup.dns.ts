// TxtLookup over node:dns: a Resolver of its own (the operator's nameservers, or the system's), bounded in time.
import { Resolver } from 'node:dns/promises';
import { DnsUnavailable, type TxtLookup } from '../../domain/ports/txt-lookup.js';

export interface DnsTxtLookupOptions {
  /** Nameservers as node:dns takes them (`1.1.1.1`, `127.0.0.1:5353`, `[::1]:53`); empty: the system's. */
  servers: readonly string[];
  /** Per attempt (default 2 s), and attempts per server (default 2): a check never waits long on DNS. */
  timeoutMs?: number;
  tries?: number;
}

/** What node:dns answers for a name that has no TXT record: not a failure, an absence. */
const ABSENT = new Set(['ENOTFOUND', 'ENODATA']);

export class DnsTxtLookup implements TxtLookup {
  readonly #resolver: Resolver;

  constructor(options: DnsTxtLookupOptions) {
    this.#resolver = new Resolver({ timeout: options.timeoutMs ?? 2_000, tries: options.tries ?? 2 });
    if (options.servers.length > 0) this.#resolver.setServers([...options.servers]);
  }

  async txt(name: string): Promise<string[]> {
    try {
      return (await this.#resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== undefined && ABSENT.has(code)) return [];
      throw new DnsUnavailable(`DNS did not answer for ${name} (${code ?? String(error)})`);
    }
  }
}
