// What an API key may do: the scopes a key is made with, and the check every API route makes against its own one.
import { ApiError } from './errors.js';

/** Every scope, in the order the docs and the portal show them; a key made without a list holds them all. */
export const KEY_SCOPES = [
  'generate',
  'decode',
  'codes:read',
  'codes:write',
  'batches',
  'designs',
  'logos',
  'analytics:read',
  'webhooks',
  'domains',
  'signing-keys',
  'admin',
] as const;

export type KeyScope = (typeof KEY_SCOPES)[number];

export function isKeyScope(value: string): value is KeyScope {
  return (KEY_SCOPES as readonly string[]).includes(value);
}

/** A key's scopes from what its maker asked for: undefined means every scope; an unknown or empty list is a 400. */
export function checkedScopes(requested: readonly string[] | undefined, field = 'scopes'): KeyScope[] {
  if (requested === undefined) return [...KEY_SCOPES];
  const unknown = requested.filter((scope) => !isKeyScope(scope));
  if (requested.length === 0 || unknown.length > 0) {
    const detail =
      `one or more of ${KEY_SCOPES.join(', ')}` + `${unknown.length > 0 ? ` (unknown: ${unknown.join(', ')})` : ''}`;
    throw new ApiError('invalid_request', `${field}: ${detail}`, { fields: [{ field, detail }] });
  }
  // Kept in the catalogue's order, each once, so two keys with the same rights read the same.
  return KEY_SCOPES.filter((scope) => requested.includes(scope));
}

/** Throws 403 insufficient_scope naming the scope the call needs when the key does not hold it. */
export function requireScope(granted: readonly KeyScope[], required: KeyScope): void {
  if (granted.includes(required)) return;
  throw new ApiError(
    'insufficient_scope',
    `this API key lacks the \`${required}\` scope this call needs; make a key with it`,
    {
      extensions: { requiredScope: required },
    },
  );
}

/**
 * How stores keep a key's scopes: null for every scope (so such a key also holds scopes added later), else the list.
 */
export function scopesToStore(scopes: readonly KeyScope[]): KeyScope[] | null {
  return KEY_SCOPES.every((scope) => scopes.includes(scope)) ? null : [...scopes];
}

/** A stored value back to scopes: null or absent (keys made before scopes existed) is every scope. */
export function scopesFromStore(stored: readonly string[] | null | undefined): KeyScope[] {
  return stored == null ? [...KEY_SCOPES] : KEY_SCOPES.filter((scope) => stored.includes(scope));
}
