// Use case: resolve the X-API-Key header to the caller's credential, or refuse with 401.
import { apiKeyStatus, hashApiKey, isWellFormedApiKey } from '../domain/api-key.js';
import { ApiError } from '../domain/errors.js';
import type { Credential, KeyStore } from '../domain/ports/key-store.js';

export interface AuthenticateDeps {
  keys: KeyStore;
  keyPepper: string | undefined;
  clock: () => Date;
}

export async function authenticate(deps: AuthenticateDeps, presented: string | undefined): Promise<Credential> {
  if (presented === undefined || presented === '') {
    throw new ApiError(
      'missing_api_key',
      "send your API key in the X-API-Key header; create one on the developer portal's Keys page (/portal/keys), " +
        'or ask the operator (`npm run --silent qrm -- keys create --email E`)',
    );
  }
  // The checksum rejects typos and junk before any store lookup.
  if (!isWellFormedApiKey(presented))
    throw new ApiError('invalid_api_key', 'the API key is malformed (wrong prefix, length or checksum)');
  const credential = await deps.keys.findActiveCredential(hashApiKey(presented, deps.keyPepper));
  if (!credential) throw new ApiError('invalid_api_key', 'the API key is unknown or has been revoked');
  if (credential.expiresAt !== undefined && apiKeyStatus(credential, deps.clock()) === 'expired') {
    throw new ApiError(
      'expired_api_key',
      `the API key expired at ${credential.expiresAt.toISOString()}; make a new one`,
      {
        extensions: { expiredAt: credential.expiresAt.toISOString() },
      },
    );
  }
  return credential;
}
