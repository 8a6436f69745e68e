// Use cases for API keys: issue (secret shown once, with its scopes and expiry, within its maker's role), list, revoke.
import { OPERATOR_ACTOR, type Actor } from '../domain/actor.js';
import { apiKeyHint, generateApiKey, hashApiKey, MAX_ACTIVE_KEYS } from '../domain/api-key.js';
import { ApiError } from '../domain/errors.js';
import { checkedScopes, type KeyScope } from '../domain/key-scope.js';
import { assertScopesWithinRole, scopesBeyondRole, scopesRoleAllows } from '../domain/role-scopes.js';
import type { Role } from '../domain/roles.js';
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
  /**
   * The maker's role when a member makes the key: the key gets no scope the role lacks (403 insufficient_role), and
   * without a list it gets every scope the role allows. The operator's tools name none.
   */
  makerRole?: Role;
}

/** The key's scopes: the list asked for, else every scope (or every scope the maker's role allows), checked. */
function scopesFor(options: KeyOptions): KeyScope[] {
  if (options.makerRole === undefined) return checkedScopes(options.scopes);
  const scopes = options.scopes === undefined ? scopesRoleAllows(options.makerRole) : checkedScopes(options.scopes);
  assertScopesWithinRole(options.makerRole, scopes);
  return scopes;
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
  const scopes = scopesFor(options);
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

/** Why a member's keys were revoked: the member left or was removed, or its new role no longer allows them. */
export type MakerChange = { removed: true } | { role: Role };

/**
 * Revokes the active keys a member made that its change leaves it no longer entitled to: every one when it leaves the
 * account, those holding a scope its new role lacks when its role changes. Returns the keys revoked (the caller
 * audits each); each revocation reaches every instance like any other.
 */
export async function revokeKeysBeyondMaker(
  deps: ApiKeyDeps,
  accountId: string,
  memberId: string,
  change: MakerChange,
): Promise<ApiKeyRecord[]> {
  const now = deps.clock();
  const made = (await listKeys(deps, accountId, { createdBy: memberId })).filter(
    (key) => key.createdBy?.type === 'member' && key.revokedAt === undefined,
  );
  const beyond = made.filter((key) => 'removed' in change || scopesBeyondRole(change.role, key.scopes).length > 0);
  const revoked: ApiKeyRecord[] = [];
  for (const key of beyond) {
    const record = await deps.keys.revoke(accountId, key.id, now);
    if (!record) continue;
    await deps.onRevoked?.(key.id);
    revoked.push(record);
  }
  return revoked;
}
