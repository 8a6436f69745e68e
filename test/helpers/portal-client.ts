// A cookie-keeping client for the portal over app.inject: pages, forms with their CSRF token, and the JSON API.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

export class PortalClient {
  readonly #app: FastifyInstance;
  readonly #cookies = new Map<string, string>();
  readonly #remoteAddress: string;

  constructor(app: FastifyInstance, options: { remoteAddress?: string } = {}) {
    this.#app = app;
    this.#remoteAddress = options.remoteAddress ?? '127.0.0.1';
  }

  get cookies(): ReadonlyMap<string, string> {
    return this.#cookies;
  }

  setCookie(name: string, value: string): void {
    this.#cookies.set(name, value);
  }

  /** A second browser holding exactly this one's cookies (a stolen or replayed cookie jar). */
  clone(): PortalClient {
    const copy = new PortalClient(this.#app, { remoteAddress: this.#remoteAddress });
    for (const [name, value] of this.#cookies) copy.setCookie(name, value);
    return copy;
  }

  async request(options: {
    method: string;
    url: string;
    headers?: Record<string, string>;
    payload?: string | Buffer;
  }): Promise<LightMyRequestResponse> {
    const cookie = [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await this.#app.inject({
      method: options.method as 'GET',
      url: options.url,
      remoteAddress: this.#remoteAddress,
      headers: { ...(cookie ? { cookie } : {}), ...options.headers },
      ...(options.payload === undefined ? {} : { payload: options.payload }),
    });
    for (const c of response.cookies as Array<{ name: string; value: string; maxAge?: number; expires?: Date }>) {
      const cleared =
        c.maxAge === 0 || (c.expires !== undefined && c.expires.getTime() <= Date.now()) || c.value === '';
      if (cleared) this.#cookies.delete(c.name);
      else this.#cookies.set(c.name, c.value);
    }
    return response;
  }

  get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    return this.request({ method: 'GET', url, headers });
  }

  /**
   * Posts a form as a browser would (urlencoded, with the page's Origin: inject's Host is localhost:80); `_csrf` is
   * sent only if given.
   */
  postForm(
    url: string,
    fields: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> {
    return this.request({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost', ...headers },
      payload: new URLSearchParams(fields).toString(),
    });
  }

  json(
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> {
    return this.request({
      method,
      url,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  }

  /** Loads a page and returns the CSRF token its forms carry. */
  async csrfFrom(url: string): Promise<string> {
    const page = await this.get(url);
    const token = csrfTokenIn(page.body);
    if (!token) throw new Error(`no CSRF token on ${url} (status ${page.statusCode})`);
    return token;
  }

  /** Loads `page` and posts `fields` to `action` with the page's CSRF token, as submitting the page's form does. */
  async submitForm(page: string, action: string, fields: Record<string, string>): Promise<LightMyRequestResponse> {
    return this.postForm(action, { _csrf: await this.csrfFrom(page), ...fields });
  }

  /** Submits the playground's form: to generate, or with `action` `/portal/playground/design` to save a design. */
  submitPlayground(fields: Record<string, string>, action = '/portal/playground'): Promise<LightMyRequestResponse> {
    return this.submitForm('/portal/playground', action, fields);
  }

  async signInLocally(email: string): Promise<LightMyRequestResponse> {
    const _csrf = await this.csrfFrom('/portal/signin');
    const response = await this.postForm('/portal/auth/local', { email, _csrf });
    if (response.statusCode !== 303) throw new Error(`local sign-in failed: ${response.statusCode} ${response.body}`);
    return response;
  }
}

export function csrfTokenIn(html: string): string | undefined {
  return /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? /<meta name="csrf-token" content="([^"]+)"/.exec(html)?.[1];
}
