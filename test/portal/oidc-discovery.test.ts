// OIDC discovery: the document must name the configured issuer (Microsoft's tenant forms included) and offer what
// sign-in needs.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverProvider, OidcDiscoveryError } from '../../src/adapters/oidc/discovery.js';

let server: Server;
let base = '';
/** path of the discovery document → the document served there */
const documents = new Map<string, Record<string, unknown>>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const document = documents.get(req.url ?? '');
    res.statusCode = document ? 200 : 404;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(document ?? {}));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function serve(path: string, issuer: string, extra: Record<string, unknown> = {}): void {
  documents.set(`${path}/.well-known/openid-configuration`, {
    issuer,
    authorization_endpoint: `${base}/authorize`,
    token_endpoint: `${base}/token`,
    jwks_uri: `${base}/jwks`,
    id_token_signing_alg_values_supported: ['RS256'],
    ...extra,
  });
}

describe('OIDC discovery', () => {
  it('reads the endpoints of a provider whose document names the configured issuer', async () => {
    serve('/google', `${base}/google`, { code_challenge_methods_supported: ['plain', 'S256'] });
    await expect(discoverProvider('google', `${base}/google/`)).resolves.toEqual({
      provider: 'google',
      issuer: `${base}/google`,
      authorizationEndpoint: `${base}/authorize`,
      tokenEndpoint: `${base}/token`,
      jwksUri: `${base}/jwks`,
      signingAlgorithms: ['RS256'],
    });
  });

  it('refuses a document that names another issuer', async () => {
    serve('/impostor', 'https://accounts.google.com');
    await expect(discoverProvider('google', `${base}/impostor`)).rejects.toThrow(
      /names issuer "https:\/\/accounts\.google\.com"/,
    );
  });

  it("accepts Microsoft's templated issuer for common, and a concrete tenant for consumers", async () => {
    serve('/common/v2.0', `${base}/{tenantid}/v2.0`);
    serve('/consumers/v2.0', `${base}/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0`);
    expect((await discoverProvider('microsoft', `${base}/common/v2.0`)).issuer).toBe(`${base}/{tenantid}/v2.0`);
    expect((await discoverProvider('microsoft', `${base}/consumers/v2.0`)).issuer).toBe(
      `${base}/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0`,
    );
  });

  it('does not let another tenant stand in for a configured single tenant', async () => {
    serve('/11111111-1111-1111-1111-111111111111/v2.0', `${base}/22222222-2222-2222-2222-222222222222/v2.0`);
    await expect(
      discoverProvider('microsoft', `${base}/11111111-1111-1111-1111-111111111111/v2.0`),
    ).rejects.toBeInstanceOf(OidcDiscoveryError);
  });

  it('refuses a provider without PKCE S256, without a JWKS, or signing only with a shared secret', async () => {
    serve('/no-pkce', `${base}/no-pkce`, { code_challenge_methods_supported: ['plain'] });
    serve('/no-jwks', `${base}/no-jwks`, { jwks_uri: undefined });
    serve('/hmac', `${base}/hmac`, { id_token_signing_alg_values_supported: ['HS256', 'none'] });
    await expect(discoverProvider('google', `${base}/no-pkce`)).rejects.toThrow(/PKCE S256/);
    await expect(discoverProvider('google', `${base}/no-jwks`)).rejects.toThrow(/jwks_uri/);
    await expect(discoverProvider('google', `${base}/hmac`)).rejects.toThrow(/asymmetric/);
  });

  it('gives up at the deadline when the provider does not answer', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      // The server never answers: only the 200 ms deadline can end the wait, and the error says it was that.
      const failure = await discoverProvider('google', `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, {
        timeoutMs: 200,
      }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(OidcDiscoveryError);
      expect((failure as Error).cause).toMatchObject({ name: 'TimeoutError' });
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});
