// Use case: answer a signed image URL — the key it names, its signature, its expiry — then generate as the key's
// account.
import { ApiError } from '../domain/errors.js';
import { canonicalString, MAX_SIGNED_PARAMS, signatureMatches, SIGNED_MAX_AGE_SECONDS } from '../domain/signed-url.js';
import { activeSigningKey, type SigningIdentity, type SigningKeyDeps } from './signing-keys.js';

const BAD_SIGNATURE = 'the signature does not match this URL, or its signing key is unknown or revoked';

export interface VerifiedUrl {
  signer: SigningIdentity;
  /** `exp` (unix seconds) when the URL has one: checked against the clock by `maxAgeSeconds`, on every answer. */
  expiresAt: number | undefined;
  /** The parameters other than `exp` and `sig`: the image's options. */
  options: Array<[string, string]>;
}

/**
 * 403 `invalid_signature` for a URL we did not sign with a live key (unknown, revoked, tampered, no sig), and 400 for
 * an `exp` that is not unix seconds. Whether it has expired is `maxAgeSeconds`' question: the expiry is only
 * believed once the signature covers it, and a verified URL may be answered again later.
 */
export async function verifySignedUrl(
  deps: Pick<SigningKeyDeps, 'signingKeys' | 'signingSeal'>,
  path: string,
  keyId: string,
  params: Array<[string, string]>,
): Promise<VerifiedUrl> {
  if (params.length > MAX_SIGNED_PARAMS)
    throw new ApiError('invalid_request', `a signed URL carries at most ${MAX_SIGNED_PARAMS} query parameters`);
  const sigs = params.filter(([name]) => name === 'sig');
  if (sigs.length !== 1)
    throw new ApiError(
      'invalid_signature',
      sigs.length === 0 ? 'the URL has no sig parameter' : 'the URL has more than one sig parameter',
    );
  const signer = await activeSigningKey(deps, keyId);
  if (!signer || !signatureMatches(signer.secret, canonicalString(path, params), sigs[0]![1]))
    throw new ApiError('invalid_signature', BAD_SIGNATURE);

  const exps = params.filter(([name]) => name === 'exp');
  if (exps.length > 1)
    throw new ApiError('invalid_request', 'exp: given more than once', {
      fields: [{ field: 'exp', detail: 'given more than once' }],
    });
  let expiresAt: number | undefined;
  if (exps.length === 1) {
    const raw = exps[0]![1];
    if (!/^\d{1,12}$/.test(raw))
      throw new ApiError('invalid_request', 'exp: unix seconds', {
        fields: [{ field: 'exp', detail: 'unix seconds (an integer)' }],
      });
    expiresAt = Number(raw);
  }
  return { signer, expiresAt, options: params.filter(([name]) => name !== 'sig' && name !== 'exp') };
}

/** Seconds a cache may keep the image: a year, or up to `exp`; 410 `url_expired` once `exp` has passed. */
export function maxAgeSeconds(expiresAt: number | undefined, now: Date): number {
  if (expiresAt === undefined) return SIGNED_MAX_AGE_SECONDS;
  const remaining = expiresAt - Math.floor(now.getTime() / 1000);
  if (remaining <= 0)
    throw new ApiError(
      'url_expired',
      `this URL expired at ${new Date(expiresAt * 1000).toISOString()}; sign a new one`,
    );
  return Math.min(SIGNED_MAX_AGE_SECONDS, remaining);
}
