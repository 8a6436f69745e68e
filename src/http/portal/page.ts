// Renders a portal page inside the layout, with what every page needs: the account and a CSRF token.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { roleAllows, type Permission } from '../../domain/roles.js';

export type NavItem =
  | 'dashboard'
  | 'keys'
  | 'qrs'
  | 'logos'
  | 'codes'
  | 'batches'
  | 'playground'
  | 'plans'
  | 'signin'
  | 'signing'
  | 'domains'
  | 'members'
  | 'settings'
  | 'audit'
  | 'docs';

/** The portal's navigation, each entry with the access its page declares: a member sees the entries its role opens. */
export const NAV_ITEMS: ReadonlyArray<{ id: NavItem; label: string; path: string; access: Permission | 'member' }> = [
  { id: 'dashboard', label: 'Dashboard', path: '/', access: 'read' },
  { id: 'keys', label: 'API keys', path: '/keys', access: 'read' },
  { id: 'qrs', label: 'QR codes', path: '/qrs', access: 'read' },
  { id: 'logos', label: 'Logos', path: '/logos', access: 'read' },
  { id: 'signing', label: 'Signed URLs', path: '/signing', access: 'read' },
  { id: 'codes', label: 'Dynamic codes', path: '/codes', access: 'read' },
  { id: 'domains', label: 'Domains', path: '/domains', access: 'read' },
  { id: 'batches', label: 'Batches', path: '/batches', access: 'read' },
  { id: 'playground', label: 'Playground', path: '/playground', access: 'generate' },
  { id: 'members', label: 'Members', path: '/members', access: 'members.read' },
  { id: 'settings', label: 'Settings', path: '/settings', access: 'read' },
  { id: 'plans', label: 'Plans', path: '/plans', access: 'plans.read' },
  { id: 'audit', label: 'Audit log', path: '/audit-log', access: 'audit.read' },
];

export interface PageData {
  title: string;
  /** Which navigation entry is current, if any. */
  nav?: NavItem;
  [field: string]: unknown;
}

export function renderPage(
  request: FastifyRequest,
  reply: FastifyReply,
  template: string,
  data: PageData,
  status = 200,
): FastifyReply {
  return reply
    .code(status)
    .header('Cache-Control', 'no-store') // pages hold account data, and once a new key's secret
    .view(template, {
      ...data,
      account: request.account,
      member: request.member,
      signedInAs: request.signedInAs,
      switchable: request.switchable,
      navItems: request.member
        ? NAV_ITEMS.filter((item) => item.access === 'member' || roleAllows(request.member!.role, item.access))
        : [],
      // Only a browser with a session can post forms; the token is bound to that session's secret.
      csrfToken: request.session ? reply.generateCsrf() : undefined,
    });
}

/** What one answer adds to a page's data (a notice, a refusal, the form as posted), with its status. */
export type PageAnswer = (
  request: FastifyRequest,
  reply: FastifyReply,
  extra?: Record<string, unknown>,
  status?: number,
) => Promise<FastifyReply>;

/** A page whose data `load` reads for the request: every answer renders it, with what that answer adds on top. */
export function accountPage(template: string, load: (request: FastifyRequest) => Promise<PageData>): PageAnswer {
  return async (request, reply, extra = {}, status = 200) =>
    renderPage(request, reply, template, { ...(await load(request)), ...extra }, status);
}
