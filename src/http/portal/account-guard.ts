// onRequest of every portal route: the account in use, the member acting in it, and the role the route's config
// requires.
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import type { Account, AccountStore } from '../../domain/ports/account-store.js';
import type { Member, MemberStore } from '../../domain/ports/member-store.js';
import { PERMISSION_NAMES, type Permission } from '../../domain/roles.js';
import { assertAllowed, membershipIn } from '../../services/members.js';

/**
 * What a portal route requires: a permission of the role table, `member` (any member of the account in use: the
 * dashboard, switching accounts, signing out everywhere), or `public` (sign-in, assets, invitations' landing page).
 */
export type RouteAccess = Permission | 'member' | 'public';

declare module 'fastify' {
  interface FastifyRequest {
    /** The account in use, set by the guard on signed-in routes; every portal query is scoped to it. */
    account: Account | undefined;
    /** The signed-in identity's membership of the account in use (its role). */
    member: Member | undefined;
    /** The signed-in identity's own account (whose e-mail it signed in with). */
    signedInAs: Account | undefined;
    /** Pages only: the accounts the identity may switch to (each with the role it holds there). */
    switchable: SwitchableAccount[] | undefined;
  }
  interface FastifyInstance {
    /** Every portal route with the access it declared (what the route-access test walks). */
    portalRoutes: PortalRouteAccess[];
  }
  interface FastifyContextConfig {
    /** Required on every portal route (checked when the route is added). */
    access?: RouteAccess;
  }
}

export interface SwitchableAccount {
  id: string;
  /** The account's own e-mail: how people tell their accounts apart. */
  label: string;
  role: Member['role'];
}

export const SIGN_IN_FIRST = 'sign in to the developer portal first: this API uses the portal session cookie';

const ACCESS_VALUES: readonly string[] = [...PERMISSION_NAMES, 'member', 'public'];

/** A portal route and what it requires: the table the portal keeps of every route it serves. */
export interface PortalRouteAccess {
  method: string;
  url: string;
  access: RouteAccess;
}

/**
 * onRoute: a portal route without a declared access cannot be added, so none is open by omission; each is noted in
 * `table`.
 */
export function requireDeclaredAccess(table: PortalRouteAccess[]) {
  return function (route: RouteOptions): void {
    const access = (route.config as { access?: unknown } | undefined)?.access;
    if (typeof access !== 'string' || !ACCESS_VALUES.includes(access)) {
      throw new Error(
        `portal route ${String(route.method)} ${route.url} must declare config.access (a permission, 'member' ` +
          `or 'public')`,
      );
    }
    for (const method of [route.method].flat()) table.push({ method, url: route.url, access: access as RouteAccess });
  };
}

export interface AccessGuardDeps {
  accounts: AccountStore;
  members: MemberStore;
  base: string;
}

/** The account in use and the identity's membership of it; its own account when it is no member of the other. */
async function resolveMembership(deps: AccessGuardDeps, own: Account, activeAccountId: string | undefined) {
  const other =
    activeAccountId !== undefined && activeAccountId !== own.id
      ? await deps.accounts.findById(activeAccountId)
      : undefined;
  const otherMember = other && (await membershipIn(deps, other, own.identity, own.email));
  if (other && otherMember) return { account: other, member: otherMember };
  return { account: own, member: await membershipIn(deps, own, own.identity, own.email) };
}

async function switchableAccounts(deps: AccessGuardDeps, own: Account): Promise<SwitchableAccount[]> {
  const memberships = await deps.members.membershipsOf(own.identity);
  const accounts = await Promise.all(memberships.map((m) => deps.accounts.findById(m.accountId)));
  return memberships.flatMap((m, i) =>
    accounts[i] ? [{ id: m.accountId, label: accounts[i].email, role: m.role }] : [],
  );
}

export function accessGuard(deps: AccessGuardDeps) {
  return async function (request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const access = request.routeOptions.config.access;
    if (access === undefined || access === 'public') return;
    const accountId = request.session?.accountId;
    const own = accountId === undefined ? undefined : await deps.accounts.findById(accountId);
    if (!own) {
      if (request.url.startsWith(`${deps.base}/api/`)) throw new ApiError('unauthorized', SIGN_IN_FIRST);
      await reply.redirect(`${deps.base}/signin`, 303);
      return;
    }
    const { account, member } = await resolveMembership(deps, own, request.session?.activeAccountId);
    if (!member) {
      throw new ApiError(
        'forbidden',
        'you are no longer a member of this account; sign out, or ask an owner to invite you again',
      );
    }
    request.signedInAs = own;
    request.account = account;
    request.member = member;
    if (access !== 'member') assertAllowed(member.role, access);
    if (request.method === 'GET' && !request.url.startsWith(`${deps.base}/api/`))
      request.switchable = await switchableAccounts(deps, own);
  };
}
