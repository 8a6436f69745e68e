// Local stand-ins for Google and Microsoft sign-in: oauth2-mock-server on loopback, shaped like each provider.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OAuth2Issuer, OAuth2Service, type MutableToken } from 'oauth2-mock-server';

export type MockProviderKind = 'google' | 'microsoft';

/** Who the next sign-ins are, as the provider would describe them. */
export interface MockUser {
  /** Google: `sub`. */
  sub?: string;
  /** Microsoft: tenant and object ids (GUIDs). */
  tid?: string;
  oid?: string;
  email?: string;
  email_verified?: boolean;
}

export interface MockProvider {
  kind: MockProviderKind;
  /** The value for GOOGLE_ISSUER / MICROSOFT_ISSUER. */
  issuer: string;
  /** The mock's request hooks (`beforeTokenSigning`, `beforeResponse`, …) for one-off misbehaviour. */
  service: OAuth2Service;
  /** The mock's issuer, e.g. to sign a token outside any flow. */
  oauthIssuer: OAuth2Issuer;
  /** Sets who signs in next (until changed). */
  signInAs(user: MockUser): void;
  stop(): Promise<void>;
}

export function newGoogleUser(): MockUser {
  const sub = String(100_000_000_000 + Math.floor(Math.random() * 1e11));
  return { sub, email: `g${sub}@gmail.example`, email_verified: true };
}

export function newMicrosoftUser(tid: string = randomUUID()): MockUser {
  const oid = randomUUID();
  return { tid, oid, email: `ms-${oid.slice(0, 8)}@contoso.example` };
}

/**
 * Google: the mock as it is, issuer = its root URL.
 * Microsoft: discovery under `/common/v2.0` names the templated issuer `…/{tenantid}/v2.0`, and every
 * token's `iss` is that template with the user's tenant, as Microsoft's multi-tenant endpoint does.
 */
export async function startMockProvider(kind: MockProviderKind): Promise<MockProvider> {
  const oauthIssuer = new OAuth2Issuer();
  await oauthIssuer.keys.generate('RS256');
  const service = new OAuth2Service(oauthIssuer);
  let base = '';
  const server: Server = createServer((req, res) => {
    if (kind === 'microsoft' && req.url === '/common/v2.0/.well-known/openid-configuration') {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          issuer: `${base}/{tenantid}/v2.0`,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          jwks_uri: `${base}/jwks`,
          response_types_supported: ['code'],
          id_token_signing_alg_values_supported: ['RS256'],
          code_challenge_methods_supported: ['plain', 'S256'],
        }),
      );
      return;
    }
    (service.requestHandler as (rq: typeof req, rs: typeof res) => void)(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  oauthIssuer.url = base;

  let user: MockUser = kind === 'google' ? newGoogleUser() : newMicrosoftUser();
  service.on('beforeTokenSigning', (token: MutableToken) => {
    if (kind === 'google') {
      Object.assign(token.payload, { sub: user.sub, email: user.email, email_verified: user.email_verified });
    } else {
      // Microsoft's `sub` is pairwise per app; accounts are keyed by tid:oid instead.
      Object.assign(token.payload, {
        sub: `pairwise-${user.oid}`,
        tid: user.tid,
        oid: user.oid,
        email: user.email,
        iss: `${base}/${user.tid}/v2.0`,
      });
    }
  });

  return {
    kind,
    issuer: kind === 'google' ? base : `${base}/common/v2.0`,
    service,
    oauthIssuer,
    signInAs(next) {
      user = next;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Follows the provider's authorization redirect as a browser would; returns the callback's path and query. */
export async function authorizeAt(authorizationUrl: string): Promise<string> {
  const response = await fetch(authorizationUrl, { redirect: 'manual', signal: AbortSignal.timeout(5_000) });
  const location = response.headers.get('location');
  if (!location) throw new Error(`the provider did not redirect (${response.status})`);
  const callback = new URL(location);
  return callback.pathname + callback.search;
}

/** Changes the next id_token only (access tokens are signed through the same hook, without a nonce). */
export function onNextIdToken(provider: MockProvider, change: (payload: Record<string, unknown>) => void): void {
  const handler = (token: MutableToken) => {
    if (!('nonce' in token.payload)) return;
    provider.service.off('beforeTokenSigning', handler);
    change(token.payload);
  };
  provider.service.on('beforeTokenSigning', handler);
}

/** Replaces the id_token of the next token response (the hook is synchronous, so the change must be too). */
export function onNextTokenResponse(provider: MockProvider, change: (body: Record<string, unknown>) => void): void {
  provider.service.once('beforeResponse', (response: { body: unknown }) =>
    change(response.body as Record<string, unknown>),
  );
}
