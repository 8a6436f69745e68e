// Which API key scopes each role may put on a key it makes: a key never does more than its maker's role allows.
import { ApiError } from './errors.js';
import { KEY_SCOPES, type KeyScope } from './key-scope.js';
import { roleAllows, roleNeededFor, type Permission, type Role } from './roles.js';

/** The permission a scope stands for: a role may give a key the scope only when it holds that permission itself. */
export const SCOPE_PERMISSION = {
  generate: 'generate',
  decode: 'generate',
  'codes:read': 'read',
  'codes:write': 'codes.manage',
  batches: 'codes.manage',
  designs: 'designs.manage',
  logos: 'designs.manage',
  'analytics:read': 'read',
  webhooks: 'webhooks.manage',
  domains: 'domains.manage',
  'signing-keys': 'signing-keys.manage',
  admin: 'members.manage',
} as const satisfies Record<KeyScope, Permission>;

/** The scopes a member with `role` may put on a key: none without `keys.manage` (viewer, billing). */
export function scopesRoleAllows(role: Role): KeyScope[] {
  if (!roleAllows(role, 'keys.manage')) return [];
  return KEY_SCOPES.filter((scope) => roleAllows(role, SCOPE_PERMISSION[scope]));
}

/** The least trusted role that may make a key with every one of `scopes`. */
function roleNeededForScopes(scopes: readonly KeyScope[]): Role {
  const needed = scopes.map((scope) => roleNeededFor(SCOPE_PERMISSION[scope]));
  return (['owner', 'admin', 'developer'] as const).find((role) => needed.includes(role)) ?? 'developer';
}

/** The scopes of `scopes` that `role` may not give a key. */
export function scopesBeyondRole(role: Role, scopes: readonly KeyScope[]): KeyScope[] {
  const allowed = scopesRoleAllows(role);
  return scopes.filter((scope) => !allowed.includes(scope));
}

/** Throws 403 insufficient_role naming the scopes `role` may not give and the role that could. */
export function assertScopesWithinRole(role: Role, scopes: readonly KeyScope[]): void {
  if (!roleAllows(role, 'keys.manage')) {
    const needed = roleNeededFor('keys.manage');
    throw new ApiError('insufficient_role', `your role (${role}) cannot make API keys; it needs the ${needed} role`, {
      extensions: { requiredRole: needed, role },
    });
  }
  const beyond = scopesBeyondRole(role, scopes);
  if (beyond.length === 0) return;
  const needed = roleNeededForScopes(beyond);
  throw new ApiError(
    'insufficient_role',
    `your role (${role}) cannot make a key with ${beyond.map((scope) => `\`${scope}\``).join(', ')}; ` +
      `that needs the ${needed} role`,
    { extensions: { requiredRole: needed, role, scopes: beyond } },
  );
}
