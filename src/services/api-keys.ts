// Use cases for API keys: issue (secret shown once, with its scopes and expiry), list, revoke.
import { OPERATOR_ACTOR, type Actor } from '../domain/actor.js';
import { apiKeyHint, generateApiKey, hashApiKey, MAX_ACTIVE_KEYS } from '../domain/api-key.js';
import { ApiError } from '../domain/errors.js';
import { checkedScopes } from '../domain/key-scope.js';
import type { AccountStore } from '../domain/ports/account-store.js';
import type { ApiKeyRecord, KeyStore } from '../domain/ports/key-store.js';

export interface ApiKeyDeps {
  accounts: AccountStore;
  keys: KeyStore;
  keyPepper: string | undefined;
  clock: () => Date;
  /** Told about every revocation, so caches on other instances drop the key at once. */
  onRevoked?: (keyId: string) => Promise<void> | void;
}

export const KEY_NAME_MAX_LENGTH = 64;

export interface IssuedKey {
  /** The secret: returned here once and never stored or shown again. */
  secret: string;
  key: ApiKeyRecord;
}

function checkedName(name: string | undefined): string {
  const trimmed = (name ?? 'default').trim();
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  if (trimmed.length === 0 || trimmed.length > KEY_NAME_MAX_LENGTH || /[\u0000-\u001f\u007f]/u.test(trimmed)) {
    throw new ApiError('invalid_request', `key name must be 1 to ${KEY_NAME_MAX_LENGTH} printable characters`, {
      fields: [{ field: 'name', detail: `1 to ${KEY_NAME_MAX_LENGTH} printable characters` }],
    });
  }
  return trimmed;
}

export interface KeyOptions {
  /** Default: every scope. */
  scopes?: readonly string[];
  /** Default: never expires. Must lie in the future. */
  expiresAt?: Date;
  /** Who makes the key; the operator's tools when not named. */
  createdBy?: Actor;
}

function checkedExpiry(expiresAt: Date | undefined, now: Date): Date | undefined {
  if (expiresAt === undefined) return undefined;
  if (Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= now.getTime()) {
    const detail = 'an ISO 8601 instant in the future, e.g. 2027-01-31T00:00:00Z';
    throw new ApiError('invalid_request', `expiresAt: ${detail}`, { fields: [{ field: 'expiresAt', detail }] });
  }
  return expiresAt;
}

export async function issueKey(
  deps: ApiKeyDeps,
  accountId: string,
  name?: string,
  options: KeyOptions = {},
): Promise<IssuedKey> {
  const keyName = checkedName(name);
  const scopes = checkedScopes(options.scopes);
  const now = deps.clock();
  const expiresAt = checkedExpiry(options.expiresAt, now);
  const account = await deps.accounts.findById(accountId);
  if (!account) throw new ApiError('not_found', 'no such account');
  const secret = generateApiKey();
  const created = await deps.keys.createWithinLimit(
    {
      accountId,
      name: keyName,
      hash: hashApiKey(secret, deps.keyPepper),
      hint: apiKeyHint(secret),
      createdAt: now,
      scopes,
      expiresAt,
      createdBy: options.createdBy ?? OPERATOR_ACTOR,
    },
    MAX_ACTIVE_KEYS,
  );
  if (created === 'limit_reached') {
    throw new ApiError(
      'key_limit_reached',
      `an account may hold at most ${MAX_ACTIVE_KEYS} active keys; revoke one to create another`,
      {
        extensions: { limit: MAX_ACTIVE_KEYS },
      },
    );
  }
  return { secret, key: created };
}

/** The account's keys, newest first; `createdBy` keeps those one member (or the operator) made. */
export async function listKeys(
  deps: Pick<ApiKeyDeps, 'keys'>,
  accountId: string,
  filter: { createdBy?: string } = {},
): Promise<ApiKeyRecord[]> {
  const keys = await deps.keys.list(accountId);
  return filter.createdBy === undefined ? keys : keys.filter((key) => key.createdBy?.id === filter.createdBy);
}

export async function revokeKey(deps: ApiKeyDeps, accountId: string, keyId: string): Promise<ApiKeyRecord> {
  const revoked = await deps.keys.revoke(accountId, keyId, deps.clock());
  // Another tenant's key id answers exactly like a missing one: no existence oracle.
  if (!revoked) throw new ApiError('not_found', 'no such key on this account');
  await deps.onRevoked?.(keyId);
  return revoked;
}
