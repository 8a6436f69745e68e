// /api/v1/QRManager/members: the account's members, their roles (changed and removed), and its pending invitations.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { pageOf } from '../../../domain/list-page.js';
import type { AccountStore } from '../../../domain/ports/account-store.js';
import type { KeyStore } from '../../../domain/ports/key-store.js';
import type { Invitation, Member, MemberStore } from '../../../domain/ports/member-store.js';
import { ROLES } from '../../../domain/roles.js';
import { invitationEvent, memberRemovedEvents, roleChangedEvents } from '../../../services/member-audit.js';
import { invite, listInvitations, withdrawInvitation } from '../../../services/invitations.js';
import { changeRole, listMembers, removeMember, type Actor } from '../../../services/members.js';
import { header } from '../../openapi/operation-doc.js';
import { COMMON_ERRORS, problemResponses } from '../../openapi/problem.schema.js';
import { shortUrlBase } from '../../short-url.js';
import { callerOf } from './api-key-auth.js';
import { keyWithScope } from './route-scope.js';
import { PageQuery, pageSchema } from './list-page.js';

export interface MembersRouteOptions {
  accounts: AccountStore;
  members: MemberStore;
  keys: KeyStore;
  keyPepper: string | undefined;
  clock: () => Date;
  publicUrl: string | undefined;
}

const RoleSchema = z
  .enum(ROLES)
  .describe('owner, admin, developer, viewer or billing (docs/teams.md has the permission table).');

const MemberView = z
  .object({
    id: z.string().describe('`mem_…`'),
    email: z.string(),
    role: RoleSchema,
    provider: z.enum(['google', 'microsoft', 'local']).describe('How the member signs in.'),
    joinedAt: z.string().describe('ISO 8601.'),
  })
  .meta({ id: 'Member' });

const InvitationView = z
  .object({
    id: z.string().describe('`inv_…`'),
    email: z.string(),
    role: RoleSchema,
    createdAt: z.string().describe('ISO 8601.'),
    expiresAt: z.string().describe('ISO 8601: seven days after it was made.'),
  })
  .meta({ id: 'Invitation' });

const CreatedInvitation = InvitationView.extend({
  acceptUrl: z
    .string()
    .describe('Send it to the invitee: it holds the token, shown in this answer only (only its digest is stored).'),
}).meta({ id: 'CreatedInvitation' });

function memberView(member: Member): z.infer<typeof MemberView> {
  return {
    id: member.id,
    email: member.email,
    role: member.role,
    provider: member.identity.provider,
    joinedAt: member.joinedAt.toISOString(),
  };
}

function invitationView(invitation: Invitation): z.infer<typeof InvitationView> {
  const { id, email, role } = invitation;
  return {
    id,
    email,
    role,
    createdAt: invitation.createdAt.toISOString(),
    expiresAt: invitation.expiresAt.toISOString(),
  };
}

const AUTH_ERRORS = ['missing_api_key', 'invalid_api_key', 'expired_api_key', 'insufficient_scope'] as const;
const MemberParams = z.object({ id: z.string().min(1).max(64) });
const KEY_ROLE_NOTE =
  'An API key acts as an admin here: it cannot make, demote or remove owners (403 `insufficient_role`).';

export const membersRoute: FastifyPluginAsyncZod<MembersRouteOptions> = async (app, deps) => {
  const actorOf = (keyId: string): Actor => ({ type: 'api_key', keyId });

  app.get(
    '/QRManager/members',
    {
      schema: {
        operationId: 'listMembers',
        summary: "List the account's members and their roles, newest first",
        tags: ['members'],
        security: keyWithScope('admin'),
        querystring: PageQuery,
        response: {
          200: pageSchema(MemberView),
          ...problemResponses(['invalid_request', ...AUTH_ERRORS, ...COMMON_ERRORS]),
        },
      },
    },
    async (request) => {
      const members = await listMembers(deps, callerOf(request).accountId);
      const page = pageOf(
        members.map((m) => ({ ...m, createdAt: m.joinedAt })),
        request.query,
      );
      return { items: page.items.map(memberView), nextCursor: page.nextCursor };
    },
  );

  app.patch(
    '/QRManager/members/:id',
    {
      config: { audit: ['member.role_changed', 'api_key.revoked'] },
      schema: {
        operationId: 'changeMemberRole',
        summary: "Change a member's role",
        description:
          `The last owner cannot be demoted (409 \`last_owner\`). The keys the member made that hold a scope the ` +
          `new role may not give are revoked. ${KEY_ROLE_NOTE}`,
        tags: ['members'],
        security: keyWithScope('admin'),
        params: MemberParams,
        body: z.strictObject({ role: RoleSchema }),
        response: {
          200: MemberView,
          ...problemResponses([
            'invalid_request',
            'not_found',
            'last_owner',
            'insufficient_role',
            'unsupported_media_type',
            'payload_too_large',
            ...AUTH_ERRORS,
            ...COMMON_ERRORS,
          ]),
        },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const changed = await changeRole(
        deps,
        actorOf(caller.keyId),
        caller.accountId,
        request.params.id,
        request.body.role,
      );
      for (const event of roleChangedEvents(caller.accountId, changed)) await app.audit(request, event);
      return memberView(changed.member);
    },
  );

  app.delete(
    '/QRManager/members/:id',
    {
      config: { audit: ['member.removed', 'api_key.revoked'] },
      schema: {
        operationId: 'removeMember',
        summary: 'Remove a member from the account',
        description:
          `The last owner cannot be removed (409 \`last_owner\`). Every key the member made is revoked. ` +
          KEY_ROLE_NOTE,
        tags: ['members'],
        security: keyWithScope('admin'),
        params: MemberParams,
        response: {
          200: MemberView,
          ...problemResponses(['not_found', 'last_owner', 'insufficient_role', ...AUTH_ERRORS, ...COMMON_ERRORS]),
        },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const removed = await removeMember(deps, actorOf(caller.keyId), caller.accountId, request.params.id);
      for (const event of memberRemovedEvents(caller.accountId, removed)) await app.audit(request, event);
      return memberView(removed.member);
    },
  );

  app.post(
    '/QRManager/invitations',
    {
      config: { audit: ['invitation.created'] },
      schema: {
        operationId: 'createInvitation',
        summary: 'Invite someone by e-mail to join the account with a role',
        description:
          'The invitee opens `acceptUrl`, signs in with the invited e-mail address and joins with one click; ' +
          'another address is ' +
          (`refused (403 \`invitation_email_mismatch\`). The invitation lasts seven days and is used once. ` +
            `${KEY_ROLE_NOTE}`),
        tags: ['members'],
        security: keyWithScope('admin'),
        body: z.strictObject({ email: z.string().max(320).describe('Who may accept it.'), role: RoleSchema }),
        response: {
          201: CreatedInvitation,
          ...problemResponses([
            'invalid_request',
            'insufficient_role',
            'unsupported_media_type',
            'payload_too_large',
            ...AUTH_ERRORS,
            ...COMMON_ERRORS,
          ]),
        },
        'x-document': { headers: { '201': { Location: header.location('The new invitation.') } } },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const created = await invite(
        deps,
        actorOf(caller.keyId),
        caller.accountId,
        request.body,
        shortUrlBase(deps.publicUrl, request),
      );
      await app.audit(request, invitationEvent(caller.accountId, 'invitation.created', created.invitation));
      reply.header('Cache-Control', 'no-store');
      return reply
        .code(201)
        .header('Location', `/api/v1/QRManager/invitations/${created.invitation.id}`)
        .send({ ...invitationView(created.invitation), acceptUrl: created.acceptUrl });
    },
  );

  app.get(
    '/QRManager/invitations',
    {
      schema: {
        operationId: 'listInvitations',
        summary: "List the account's pending invitations, newest first (never their tokens)",
        tags: ['members'],
        security: keyWithScope('admin'),
        querystring: PageQuery,
        response: {
          200: pageSchema(InvitationView),
          ...problemResponses(['invalid_request', ...AUTH_ERRORS, ...COMMON_ERRORS]),
        },
      },
    },
    async (request) => {
      const page = pageOf(await listInvitations(deps, callerOf(request).accountId), request.query);
      return { items: page.items.map(invitationView), nextCursor: page.nextCursor };
    },
  );

  app.delete(
    '/QRManager/invitations/:id',
    {
      config: { audit: ['invitation.withdrawn'] },
      schema: {
        operationId: 'withdrawInvitation',
        summary: 'Withdraw a pending invitation (its accept URL stops working)',
        tags: ['members'],
        security: keyWithScope('admin'),
        params: z.object({ id: z.string().min(1).max(64) }),
        response: {
          200: InvitationView,
          ...problemResponses(['not_found', 'insufficient_role', ...AUTH_ERRORS, ...COMMON_ERRORS]),
        },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const withdrawn = await withdrawInvitation(deps, actorOf(caller.keyId), caller.accountId, request.params.id);
      await app.audit(request, invitationEvent(caller.accountId, 'invitation.withdrawn', withdrawn));
      return invitationView(withdrawn);
    },
  );
};
