// This service's own hosts: PUBLIC_URL's hostname, ALLOWED_HOSTS, loopback names and IP literals. On any other Host
// only a
// custom domain's scan routes answer, so a customer's domain never serves the API, the portal, signed URLs or other
// accounts' codes.
import { isIP } from 'node:net';
import { hostOf } from '../domain/custom-domain.js';
import { ownHostnames } from './short-url.js';

export class ServiceHosts {
  readonly #names: ReadonlySet<string>;

  constructor(publicUrl: string | undefined, allowedHosts: readonly string[]) {
    this.#names = new Set([...ownHostnames(publicUrl), ...allowedHosts]);
  }

  /** The hostnames never registrable as a custom domain (PUBLIC_URL's and ALLOWED_HOSTS). */
  get names(): string[] {
    return [...this.#names];
  }

  /**
   * The custom host a request names (lowercase, no port), or undefined when it is one of this service's own:
   * no Host at all, an IP literal (probes, direct access), `localhost`, PUBLIC_URL's or an allowed hostname.
   * Behind a trusted proxy (TRUST_PROXY) request.host is X-Forwarded-Host.
   */
  foreignHost(hostHeader: string | undefined): string | undefined {
    if (hostHeader === undefined || hostHeader.startsWith('[')) return undefined;
    const host = hostOf(hostHeader);
    if (host === undefined || isIP(host) !== 0) return undefined;
    if (host === 'localhost' || host.endsWith('.localhost') || this.#names.has(host)) return undefined;
    return host;
  }
}
