// Use cases for signing keys: create (the secret shown once, stored sealed), list, revoke; and resolving a URL's key to
// its secret.
import { ApiError } from '../domain/errors.js';
import type { SecretSeal } from '../domain/secret-seal.js';
import {
  MAX_ACTIVE_SIGNING_KEYS,
  newSigningKeyId,
  newSigningSecret,
  SIGNING_KEY_ID,
  SIGNING_KEY_NAME_MAX,
} from '../domain/signed-url.js';
import type { SigningKeyRecord, SigningKeyStore } from '../domain/ports/signing-key-store.js';
import type { PlanId } from '../domain/plan-catalogue.js';

export interface SigningKeyDeps {
  signingKeys: SigningKeyStore;
  signingSeal: SecretSeal;
  clock: () => Date;
}

export interface CreatedSigningKey {
  key: SigningKeyRecord;
  /** Returned here once; stored only sealed. */
  secret: string;
}

export function checkedSigningKeyName(name: string | undefined): string {
  const trimmed = (name ?? 'default').trim();
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  if (trimmed.length === 0 || trimmed.length > SIGNING_KEY_NAME_MAX || /[\u0000-\u001f\u007f]/u.test(trimmed)) {
    throw new ApiError('invalid_request', `name: 1 to ${SIGNING_KEY_NAME_MAX} printable characters`, {
      fields: [{ field: 'name', detail: `1 to ${SIGNING_KEY_NAME_MAX} printable characters` }],
    });
  }
  return trimmed;
}

export async function createSigningKey(
  deps: SigningKeyDeps,
  accountId: string,
  name?: string,
): Promise<CreatedSigningKey> {
  const keyName = checkedSigningKeyName(name);
  const id = newSigningKeyId();
  const secret = newSigningSecret();
  const created = await deps.signingKeys.createWithinLimit(
    { id, accountId, name: keyName, sealedSecret: deps.signingSeal.seal(secret, id), createdAt: deps.clock() },
    MAX_ACTIVE_SIGNING_KEYS,
  );
  if (created === 'limit_reached') {
    throw new ApiError(
      'key_limit_reached',
      `an account may hold at most ${MAX_ACTIVE_SIGNING_KEYS} active signing keys; revoke one to create another`,
      {
        extensions: { limit: MAX_ACTIVE_SIGNING_KEYS },
      },
    );
  }
  return { key: created, secret };
}

export async function revokeSigningKey(
  deps: SigningKeyDeps,
  accountId: string,
  keyId: string,
): Promise<SigningKeyRecord> {
  const revoked = await deps.signingKeys.revoke(accountId, keyId, deps.clock());
  // Another tenant's key id answers exactly like a missing one: no existence oracle.
  if (!revoked) throw new ApiError('not_found', 'no such signing key on this account');
  return revoked;
}

export interface SigningIdentity {
  keyId: string;
  accountId: string;
  plan: PlanId;
  secret: string;
}

/** The active key a URL names, with its secret opened; undefined for an unknown, revoked or unreadable key. */
export async function activeSigningKey(
  deps: Pick<SigningKeyDeps, 'signingKeys' | 'signingSeal'>,
  keyId: string,
): Promise<SigningIdentity | undefined> {
  if (!SIGNING_KEY_ID.test(keyId)) return undefined;
  const credential = await deps.signingKeys.findActive(keyId);
  if (!credential) return undefined;
  const secret = deps.signingSeal.open(credential.sealedSecret, keyId);
  return secret === undefined ? undefined : { keyId, accountId: credential.accountId, plan: credential.plan, secret };
}
