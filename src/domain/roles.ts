// The members' roles and what each may do: one permission table, read by every check and by the docs.

/** Roles, from the most to the least trusted (the order the docs show them in). */
export const ROLES = ['owner', 'admin', 'developer', 'viewer', 'billing'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

interface PermissionRow {
  /** What the permission allows, as the docs' table says it. */
  allows: string;
  /** The roles that hold it. */
  roles: readonly Role[];
}

/**
 * The one permission table. `read` covers every page and list but secrets (a key's or signing key's secret is
 * shown once to its maker and never again, so no role reads it back). A route names the permission it needs.
 */
export const PERMISSIONS = {
  read: {
    allows: 'See codes, QRs, batches, designs, logos, domains, keys (hints only), signing keys, webhooks, usage, stats',
    roles: ['owner', 'admin', 'developer', 'viewer'],
  },
  'plans.read': {
    allows: 'See the plans and the account in use',
    roles: ['owner', 'admin', 'developer', 'viewer', 'billing'],
  },
  generate: { allows: 'Generate and decode codes in the portal playground', roles: ['owner', 'admin', 'developer'] },
  'keys.manage': { allows: 'Create and revoke API keys', roles: ['owner', 'admin', 'developer'] },
  'codes.manage': {
    allows: 'Create, change and delete dynamic codes and batches',
    roles: ['owner', 'admin', 'developer'],
  },
  'designs.manage': { allows: 'Save and delete designs and logos', roles: ['owner', 'admin', 'developer'] },
  'signing-keys.manage': { allows: 'Create and revoke signing keys', roles: ['owner', 'admin', 'developer'] },
  'webhooks.manage': { allows: 'Add and delete webhooks', roles: ['owner', 'admin', 'developer'] },
  'domains.manage': { allows: 'Add, check and delete custom domains', roles: ['owner', 'admin'] },
  'members.read': {
    allows: 'See the members and the pending invitations',
    roles: ['owner', 'admin', 'developer', 'viewer'],
  },
  'audit.read': { allows: 'Read the audit log (who changed what, when, from where)', roles: ['owner', 'admin'] },
  'members.manage': {
    allows: 'Invite, withdraw invitations, change and remove members who are not owners',
    roles: ['owner', 'admin'],
  },
  'owners.manage': { allows: 'Make, demote and remove owners (transfer the account)', roles: ['owner'] },
  'settings.manage': { allows: 'Change the account settings (how much of a scan is kept)', roles: ['owner', 'admin'] },
  'billing.manage': { allows: 'Change the plan and manage billing', roles: ['owner', 'admin', 'billing'] },
  'account.close': { allows: 'Close the account', roles: ['owner'] },
} as const satisfies Record<string, PermissionRow>;

export type Permission = keyof typeof PERMISSIONS;
export const PERMISSION_NAMES = Object.keys(PERMISSIONS) as Permission[];

export function roleAllows(role: Role, permission: Permission): boolean {
  return (PERMISSIONS[permission].roles as readonly Role[]).includes(role);
}

/** The least trusted role holding the permission: the one a refusal names as needed. */
export function roleNeededFor(permission: Permission): Role {
  const holders = PERMISSIONS[permission].roles as readonly Role[];
  return [...ROLES].reverse().find((role) => holders.includes(role))!;
}

/** May `actor` give `target` the role `next` (or remove it, `next` undefined)? Only owners touch owners. */
export function permissionToChangeMember(current: Role, next: Role | undefined): Permission {
  return current === 'owner' || next === 'owner' ? 'owners.manage' : 'members.manage';
}

/** The table as Markdown: docs/teams.md carries exactly this (test/docs checks it). */
export function permissionTableMarkdown(): string {
  const header = `| permission | what it allows | ${ROLES.join(' | ')} |`;
  const rule = `|---|---|${ROLES.map(() => ':-:').join('|')}|`;
  const rows = PERMISSION_NAMES.map((name) => {
    const row: PermissionRow = PERMISSIONS[name];
    return (
      `| \`${name}\` | ${row.allows} | ${ROLES.map((role) => (row.roles.includes(role) ? '✓' : '')).join(' | ')}` + ` |`
    );
  });
  return [header, rule, ...rows].join('\n');
}
