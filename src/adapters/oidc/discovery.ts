// OIDC discovery: fetches a provider's metadata once, with a deadline, and checks it names the configured issuer.
import type { OidcProvider } from '../../domain/ports/session-store.js';

export interface ProviderMetadata {
  provider: OidcProvider;
  /**
   * The issuer as the provider states it. Microsoft's multi-tenant endpoints give a template containing `{tenantid}`.
   */
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string;
  /** Asymmetric algorithms the provider signs id_tokens with (never `none` or an HMAC). */
  signingAlgorithms: string[];
}

export class OidcDiscoveryError extends Error {
  override name = 'OidcDiscoveryError';
}

const ASYMMETRIC = /^(?:RS|PS|ES)(?:256|384|512)$|^EdDSA$/;

function withoutTrailingSlash(url: string): string {
  return url.endsWith('/') ? url.slice(0, -1) : url;
}

const MICROSOFT_TENANT_ALIASES = new Set(['common', 'organizations', 'consumers']);

/**
 * `{tenantid}` matches one or more characters other than `/`. Compared path segment by segment
 * (a placeholder never crosses a `/`), without building a RegExp from the document's text.
 */
function matchesTenantTemplate(template: string, value: string): boolean {
  const patterns = template.split('/');
  const segments = value.split('/');
  return (
    patterns.length === segments.length &&
    patterns.every((pattern, i) => segmentMatches(pattern.split('{tenantid}'), segments[i]!))
  );
}

/** Literal pieces with a non-empty wildcard between each two: the leftmost fit of each piece is the right one. */
function segmentMatches(pieces: string[], segment: string): boolean {
  const first = pieces[0]!;
  if (pieces.length === 1) return segment === first;
  const last = pieces.at(-1)!;
  if (!segment.startsWith(first) || !segment.endsWith(last)) return false;
  let at = first.length;
  for (const piece of pieces.slice(1, -1)) {
    const found = segment.indexOf(piece, at + 1);
    if (found === -1) return false;
    at = found + piece.length;
  }
  return segment.length - last.length > at;
}

/**
 * OIDC Discovery §4.3: the document's issuer must be the one configured; `{tenantid}` stands for any
 * one path segment (Microsoft `common`). Microsoft's `consumers` endpoint names its concrete tenant
 * instead of the template, so for Microsoft an alias segment may stand for any one tenant.
 */
function issuerMatches(provider: OidcProvider, stated: string, configured: string): boolean {
  if (matchesTenantTemplate(withoutTrailingSlash(stated), withoutTrailingSlash(configured))) return true;
  if (provider !== 'microsoft' || !URL.canParse(stated) || !URL.canParse(configured)) return false;
  const [a, b] = [new URL(withoutTrailingSlash(stated)), new URL(withoutTrailingSlash(configured))];
  const [sa, sb] = [a.pathname.split('/'), b.pathname.split('/')];
  return (
    a.origin === b.origin &&
    sa.length === sb.length &&
    MICROSOFT_TENANT_ALIASES.has(sb[1] ?? '') &&
    sa.every((segment, i) => i === 1 || segment === sb[i])
  );
}

function requireUrl(document: Record<string, unknown>, field: string, source: string): string {
  const value = document[field];
  if (typeof value !== 'string' || !URL.canParse(value))
    throw new OidcDiscoveryError(`${source}: ${field} is missing or not a URL`);
  return value;
}

export async function discoverProvider(
  provider: OidcProvider,
  issuer: string,
  options: { timeoutMs?: number } = {},
): Promise<ProviderMetadata> {
  const source = `${withoutTrailingSlash(issuer)}/.well-known/openid-configuration`;
  let document: Record<string, unknown>;
  try {
    const response = await fetch(source, {
      signal: AbortSignal.timeout(options.timeoutMs ?? 5_000),
      headers: { accept: 'application/json' },
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    document = (await response.json()) as Record<string, unknown>;
  } catch (error) {
    throw new OidcDiscoveryError(`${source}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  const stated = document.issuer;
  if (typeof stated !== 'string' || !issuerMatches(provider, stated, issuer)) {
    throw new OidcDiscoveryError(`${source}: the document names issuer ${JSON.stringify(stated)}, not ${issuer}`);
  }
  const pkce = document.code_challenge_methods_supported;
  if (Array.isArray(pkce) && !pkce.includes('S256'))
    throw new OidcDiscoveryError(`${source}: the provider does not support PKCE S256`);
  const algorithms = Array.isArray(document.id_token_signing_alg_values_supported)
    ? document.id_token_signing_alg_values_supported
    : ['RS256'];
  const signingAlgorithms = algorithms.filter((alg): alg is string => typeof alg === 'string' && ASYMMETRIC.test(alg));
  if (signingAlgorithms.length === 0)
    throw new OidcDiscoveryError(`${source}: no asymmetric id_token signing algorithm offered`);
  return {
    provider,
    issuer: stated,
    authorizationEndpoint: requireUrl(document, 'authorization_endpoint', source),
    tokenEndpoint: requireUrl(document, 'token_endpoint', source),
    jwksUri: requireUrl(document, 'jwks_uri', source),
    signingAlgorithms,
  };
}
