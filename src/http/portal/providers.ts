// The sign-in providers as the portal shows them: their labels and whether each is ready (apart from oidc.routes, which
// loads @fastify/oauth2).
import type { OidcProvider } from '../../domain/ports/session-store.js';

export const PROVIDER_LABELS: Record<OidcProvider, string> = { google: 'Google', microsoft: 'Microsoft' };

/** Each configured provider: `ready`, or `unavailable` when discovery failed at start-up. */
export type ProviderStatus = Map<OidcProvider, 'ready' | 'unavailable'>;
