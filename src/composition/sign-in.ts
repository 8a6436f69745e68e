// The configured OIDC providers, discovered once at start-up: each ready with its id_token verifier, or unavailable.
import type { AdapterLog } from '../adapters/adapter-log.js';
import type { Adapters, OidcSignIn } from '../adapters/contract.js';
import { discoverProvider } from '../adapters/oidc/discovery.js';
import type { Config } from '../config.js';
import { PROVIDER_LABELS } from '../http/portal/providers.js';

/**
 * Our own discovery, with a deadline: the verifier needs the issuer and jwks_uri, which @fastify/oauth2 keeps
 * to itself, and an identity provider that is down must not stop the API from starting (its sign-in route
 * answers 503 until restart instead).
 */
export async function discoverSignIns(
  config: Pick<Config, 'google' | 'microsoft'>,
  log: AdapterLog,
  timeoutMs?: number,
): Promise<Adapters['signIn']> {
  const signIn: Adapters['signIn'] = {};
  for (const provider of ['google', 'microsoft'] as const) {
    const client = config[provider];
    if (client === undefined) continue;
    let entry: OidcSignIn;
    try {
      const metadata = await discoverProvider(provider, client.issuer, { timeoutMs });
      // jose loads only when a provider is configured: the embedded default's local sign-in never needs it.
      const { JoseIdTokenVerifier } = await import('../adapters/oidc/id-token-verifier.jose.js');
      const verifier = new JoseIdTokenVerifier({ metadata, clientId: client.clientId });
      entry = {
        status: 'ready',
        authorizationEndpoint: metadata.authorizationEndpoint,
        tokenEndpoint: metadata.tokenEndpoint,
        verifier,
      };
    } catch (error) {
      log.error(
        { err: error, provider },
        `${PROVIDER_LABELS[provider]} sign-in is unavailable until restart: OIDC discovery failed`,
      );
      entry = { status: 'unavailable' };
    }
    signIn[provider] = entry;
  }
  return signIn;
}
