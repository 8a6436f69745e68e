// Members page (roles, removal, invitations), an invitation's landing page and join, and switching the account in use.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../../domain/errors.js';
import type { AccountStore } from '../../../domain/ports/account-store.js';
import type { KeyStore } from '../../../domain/ports/key-store.js';
import type { MemberStore } from '../../../domain/ports/member-store.js';
import { ROLES, roleAllows } from '../../../domain/roles.js';
import {
  acceptInvitation,
  invite,
  listInvitations,
  pendingInvitation,
  withdrawInvitation,
} from '../../../services/invitations.js';
import { changeRole, listMembers, membershipIn, removeMember, type Actor } from '../../../services/members.js';
import { endSession, openSession, SIGNED_IN_TTL_MS, type SessionDeps } from '../../../services/sessions.js';
import { appendAudit, type AuditDeps } from '../../../services/audit-log.js';
import {
  invitationEvent,
  memberEvent,
  memberRemovedEvents,
  roleChangedEvents,
} from '../../../services/member-audit.js';
import { shortUrlBase } from '../../short-url.js';
import { noticeFrom, NoticeQuery } from '../notices.js';
import { accountPage, renderPage } from '../page.js';

export interface MembersRoutesOptions extends SessionDeps, AuditDeps {
  base: string;
  accounts: AccountStore;
  members: MemberStore;
  keys: KeyStore;
  keyPepper: string | undefined;
  publicUrl: string | undefined;
}

const NOTICES = {
  role: 'The role was changed.',
  removed: 'The member was removed from the account.',
  withdrawn: 'The invitation was withdrawn: its link no longer works.',
} as const;

const InviteForm = z.object({ email: z.string().max(320), role: z.enum(ROLES), _csrf: z.string().optional() });
const RoleForm = z.object({ role: z.enum(ROLES), _csrf: z.string().optional() });
const CsrfForm = z.object({ _csrf: z.string().optional() });
const IdParams = z.object({ id: z.string().min(1).max(64) });
const TokenParams = z.object({ token: z.string().min(1).max(100) });
const SwitchForm = z.object({ accountId: z.string().min(1).max(64), _csrf: z.string().optional() });

export const membersRoutes: FastifyPluginAsyncZod<MembersRoutesOptions> = async (app, options) => {
  const { base } = options;
  const actorOf = (request: FastifyRequest): Actor => ({ type: 'member', member: request.member! });

  const membersPage = accountPage('members', async (request) => {
    const accountId = request.account!.id;
    const [members, invitations] = await Promise.all([
      listMembers(options, accountId),
      listInvitations(options, accountId),
    ]);
    const role = request.member!.role;
    return {
      title: 'Members',
      nav: 'members',
      members,
      invitations,
      roles: ROLES,
      canManage: roleAllows(role, 'members.manage'),
      canManageOwners: roleAllows(role, 'owners.manage'),
    };
  });

  /**
   * A refusal the page can show beside the form (a role too low, the last owner, a bad address); others go to the error
   * page.
   */
  const shownOnPage = (error: unknown): error is ApiError =>
    error instanceof ApiError &&
    ['invalid_request', 'last_owner', 'insufficient_role', 'not_found'].includes(error.code);

  app.get(
    '/members',
    { config: { access: 'members.read' }, schema: { hide: true, querystring: NoticeQuery } },
    async (request, reply) => membersPage(request, reply, { notice: noticeFrom(NOTICES, request.query.notice) }),
  );

  app.post(
    '/members/invitations',
    {
      config: { access: 'members.manage', audit: ['invitation.created'] },
      schema: { hide: true, body: InviteForm },
      preHandler: app.requireCsrf,
    },
    async (request, reply) => {
      try {
        const input = { email: request.body.email, role: request.body.role };
        const created = await invite(
          options,
          actorOf(request),
          request.account!.id,
          input,
          shortUrlBase(options.publicUrl, request),
        );
        await app.audit(request, invitationEvent(request.account!.id, 'invitation.created', created.invitation));
        // The accept URL holds the token: shown in this answer only.
        return await membersPage(request, reply, { created }, 201);
      } catch (error) {
        if (!shownOnPage(error)) throw error;
        return membersPage(request, reply, { error: error.message, email: request.body.email }, error.status);
      }
    },
  );

  app.post(
    '/members/invitations/:id/withdraw',
    {
      config: { access: 'members.manage', audit: ['invitation.withdrawn'] },
      schema: { hide: true, params: IdParams, body: CsrfForm },
      preHandler: app.requireCsrf,
    },
    async (request, reply) => {
      const withdrawn = await withdrawInvitation(options, actorOf(request), request.account!.id, request.params.id);
      await app.audit(request, invitationEvent(request.account!.id, 'invitation.withdrawn', withdrawn));
      return reply.redirect(`${base}/members?notice=withdrawn`, 303);
    },
  );

  app.post(
    '/members/:id/role',
    {
      config: { access: 'members.manage', audit: ['member.role_changed', 'api_key.revoked'] },
      schema: { hide: true, params: IdParams, body: RoleForm },
      preHandler: app.requireCsrf,
    },
    async (request, reply) => {
      try {
        const accountId = request.account!.id;
        const changed = await changeRole(options, actorOf(request), accountId, request.params.id, request.body.role);
        for (const event of roleChangedEvents(accountId, changed)) await app.audit(request, event);
        return await reply.redirect(`${base}/members?notice=role`, 303);
      } catch (error) {
        if (!shownOnPage(error)) throw error;
        return membersPage(request, reply, { error: error.message }, error.status);
      }
    },
  );

  // Any member may leave (remove itself); removing someone else needs members.manage, checked by the use case.
  app.post(
    '/members/:id/remove',
    {
      config: { access: 'member', audit: ['member.removed', 'api_key.revoked'] },
      schema: { hide: true, params: IdParams, body: CsrfForm },
      preHandler: app.requireCsrf,
    },
    async (request, reply) => {
      const leaving = request.member!.id === request.params.id;
      try {
        const accountId = request.account!.id;
        const removed = await removeMember(options, actorOf(request), accountId, request.params.id);
        for (const event of memberRemovedEvents(accountId, removed)) await app.audit(request, event);
      } catch (error) {
        if (!shownOnPage(error) || leaving) throw error;
        return membersPage(request, reply, { error: error.message }, error.status);
      }
      return reply.redirect(leaving ? `${base}/` : `${base}/members?notice=removed`, 303);
    },
  );

  // The invitation's landing page: open to anyone holding the link; joining needs a sign-in with the invited address.
  app.get(
    '/invitations/:token',
    { config: { access: 'public' }, schema: { hide: true, params: TokenParams } },
    async (request, reply) => {
      const invitation = await pendingInvitation(options, request.params.token);
      const inviter = await options.accounts.findById(invitation.accountId);
      const signedIn =
        request.session?.accountId === undefined
          ? undefined
          : await options.accounts.findById(request.session.accountId);
      reply.header('Referrer-Policy', 'no-referrer');
      return renderPage(request, reply, 'invitation', {
        title: 'Invitation',
        invitation,
        accountLabel: inviter?.email ?? invitation.accountId,
        signedInEmail: signedIn?.email,
        token: request.params.token,
        signInUrl: `${base}/signin?next=${encodeURIComponent(`${base}/invitations/${request.params.token}`)}`,
      });
    },
  );

  app.post(
    '/invitations/:token/accept',
    {
      config: { access: 'member', audit: ['member.joined'] },
      schema: { hide: true, params: TokenParams, body: CsrfForm },
      preHandler: app.requireCsrf,
    },
    async (request, reply) => {
      const { member, invitation } = await acceptInvitation(options, request.params.token, request.signedInAs!);
      // The joining member acts here, in the account it joins (not the account in use when it clicked).
      const context = {
        actor: { type: 'member' as const, id: member.id, label: member.email },
        ip: request.ip ?? null,
        userAgent: request.headers['user-agent'] ?? null,
      };
      await appendAudit(
        options,
        context,
        memberEvent(member.accountId, 'member.joined', member, { role: member.role, invitation: invitation.id }),
      );
      await openAccount(request, reply, member.accountId);
      return reply.redirect(`${base}/`, 303);
    },
  );

  const switchConfig = {
    access: 'member' as const,
    audit: { exempt: 'changes the account this browser shows, not an account' },
  };
  app.post(
    '/account',
    { config: switchConfig, schema: { hide: true, body: SwitchForm }, preHandler: app.requireCsrf },
    async (request, reply) => {
      const own = request.signedInAs!;
      const target = await options.accounts.findById(request.body.accountId);
      const member = target && (await membershipIn(options, target, own.identity, own.email));
      if (!member) throw new ApiError('not_found', 'you are not a member of that account');
      await openAccount(request, reply, target!.id);
      return reply.redirect(`${base}/`, 303);
    },
  );

  /** The account in use changes with a new session (rotation): the old cookie stops working. */
  async function openAccount(request: FastifyRequest, reply: FastifyReply, accountId: string): Promise<void> {
    const own = request.signedInAs!;
    const issued = await openSession(options, {
      accountId: own.id,
      activeAccountId: accountId === own.id ? undefined : accountId,
      ttlMs: SIGNED_IN_TTL_MS,
    });
    await endSession(options, request.sessionToken);
    reply.setSessionCookie(issued);
  }
};
