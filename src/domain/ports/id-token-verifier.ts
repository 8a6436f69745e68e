// Port: checks an OIDC id_token and says whose it is.
import type { AccountIdentity } from './account-store.js';

export interface VerifiedIdentity {
  /** Provider + stable subject (Google `sub`; Microsoft `tid:oid`): what the account is keyed by. */
  identity: AccountIdentity;
  /** For display and contact only; never used to find an account. */
  email: string;
}

/**
 * Contract: resolves only for a token signed by one of the provider's current keys, issued by the
 * provider's issuer (Microsoft: the tenant's issuer), for this client (audience), not expired, and
 * carrying exactly `expectedNonce`. Anything else throws ApiError `unauthorized`.
 */
export interface IdTokenVerifier {
  verify(idToken: string, expectedNonce: string): Promise<VerifiedIdentity>;
}
