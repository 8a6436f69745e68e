// Renders a portal page inside the layout, with what every page needs: the account and a CSRF token.
import type { FastifyReply, FastifyRequest } from 'fastify';

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
  | 'audit';

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
      // Only a browser with a session can post forms; the token is bound to that session's secret.
      csrfToken: request.session ? reply.generateCsrf() : undefined,
    });
}
