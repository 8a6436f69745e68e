// IdTokenVerifier with jose: signature against the provider's JWKS, then issuer, audience, expiry, age and nonce.
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { ApiError } from '../../domain/errors.js';
import type { IdTokenVerifier, VerifiedIdentity } from '../../domain/ports/id-token-verifier.js';
import type { ProviderMetadata } from './discovery.js';
import { ClaimError, expectedIssuers, identityOf } from './provider-claims.js';

export interface JoseIdTokenVerifierOptions {
  metadata: ProviderMetadata;
  clientId: string;
  /** Clock for expiry checks; the real one unless a test says otherwise. */
  now?: () => Date;
}

/** Tokens are exchanged the moment they are minted: an older one is a replay, whatever its `exp`. */
const MAX_TOKEN_AGE = '10 minutes';
const CLOCK_TOLERANCE_SECONDS = 60;

export class JoseIdTokenVerifier implements IdTokenVerifier {
  readonly #metadata: ProviderMetadata;
  readonly #clientId: string;
  readonly #now: () => Date;
  // Cached keys; an unknown `kid` (key rotation) triggers a refetch, at most every 30 s.
  readonly #keys: ReturnType<typeof createRemoteJWKSet>;

  constructor(options: JoseIdTokenVerifierOptions) {
    this.#metadata = options.metadata;
    this.#clientId = options.clientId;
    this.#now = options.now ?? (() => new Date());
    this.#keys = createRemoteJWKSet(new URL(options.metadata.jwksUri), {
      timeoutDuration: 5_000,
      cooldownDuration: 30_000,
    });
  }

  async verify(idToken: string, expectedNonce: string): Promise<VerifiedIdentity> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, this.#keys, {
        algorithms: this.#metadata.signingAlgorithms,
        audience: this.#clientId,
        currentDate: this.#now(),
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        maxTokenAge: MAX_TOKEN_AGE,
        requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat', 'nonce'],
      }));
      this.#checkClaims(payload, expectedNonce);
      return identityOf(this.#metadata.provider, payload);
    } catch (error) {
      throw new ApiError('unauthorized', 'the sign-in could not be verified; please sign in again', { cause: error });
    }
  }

  #checkClaims(payload: JWTPayload, expectedNonce: string): void {
    // The issuer is checked here rather than by jwtVerify, because Microsoft's depends on the token's tenant.
    if (
      typeof payload.iss !== 'string' ||
      !expectedIssuers(this.#metadata.provider, this.#metadata.issuer, payload).includes(payload.iss)
    ) {
      throw new ClaimError(`unexpected issuer ${JSON.stringify(payload.iss)}`);
    }
    if (payload.nonce !== expectedNonce) throw new ClaimError('nonce does not match this sign-in');
    // OIDC Core §3.1.3.7: with several audiences, the token must have been issued to us (azp).
    if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== this.#clientId)
      throw new ClaimError('azp is not this client');
  }
}
