// preHandler for signed-in routes: the session's account, or a redirect to sign-in (pages) / 401 (JSON API).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import type { Account, AccountStore } from '../../domain/ports/account-store.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in account, set by requireAccount; every portal query is scoped to it. */
    account: Account | undefined;
  }
}

export const SIGN_IN_FIRST = 'sign in to the developer portal first: this API uses the portal session cookie';

export function requireAccount(deps: { accounts: AccountStore; base: string }) {
  return async function (request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const accountId = request.session?.accountId;
    const account = accountId === undefined ? undefined : await deps.accounts.findById(accountId);
    if (account) {
      request.account = account;
      return;
    }
    if (request.url.startsWith(`${deps.base}/api/`)) {
      throw new ApiError('unauthorized', SIGN_IN_FIRST);
    }
    await reply.redirect(`${deps.base}/signin`, 303);
  };
}
