// Use cases for portal sessions: open, resolve, take (single use), end — random tokens, stored only as digests.
import { createHash, randomBytes } from 'node:crypto';
import type { PendingSignIn, Session, SessionStore } from '../domain/ports/session-store.js';

export interface SessionDeps {
  sessions: SessionStore;
  clock: () => Date;
}

/** A signed-in session lasts a week; then the developer signs in again. */
export const SIGNED_IN_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** A sign-in in progress (or the sign-in form) lasts ten minutes. */
export const SIGN_IN_TTL_MS = 10 * 60 * 1000;

/** What the browser holds (the token) and what the store holds (the session, keyed by the token's digest). */
export interface IssuedSession {
  token: string;
  session: Session;
}

// 32 random bytes, base64url: 43 characters, unguessable, so the cookie needs no signature.
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** A stolen copy of the session table holds no usable cookie values. */
export function sessionIdOf(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

export async function openSession(
  deps: SessionDeps,
  input: {
    accountId?: string | undefined;
    activeAccountId?: string | undefined;
    pendingSignIn?: PendingSignIn | undefined;
    ttlMs: number;
  },
): Promise<IssuedSession> {
  const token = randomBytes(32).toString('base64url');
  const now = deps.clock();
  const session: Session = {
    id: sessionIdOf(token),
    accountId: input.accountId,
    activeAccountId: input.activeAccountId,
    csrfSecret: randomBytes(24).toString('base64url'),
    createdAt: now,
    expiresAt: new Date(now.getTime() + input.ttlMs),
    pendingSignIn: input.pendingSignIn,
  };
  await deps.sessions.create(session);
  return { token, session };
}

/** The live session for a cookie value; malformed values are refused without a lookup. */
export async function resolveSession(deps: SessionDeps, token: string | undefined): Promise<Session | undefined> {
  if (token === undefined || !TOKEN_SHAPE.test(token)) return undefined;
  return deps.sessions.find(sessionIdOf(token), deps.clock());
}

/** Removes the session and returns it, once: the next take (or find) of the same token gets nothing. */
export async function takeSession(deps: SessionDeps, token: string | undefined): Promise<Session | undefined> {
  if (token === undefined || !TOKEN_SHAPE.test(token)) return undefined;
  return deps.sessions.take(sessionIdOf(token), deps.clock());
}

export async function endSession(deps: SessionDeps, token: string | undefined): Promise<void> {
  if (token === undefined || !TOKEN_SHAPE.test(token)) return;
  await deps.sessions.delete(sessionIdOf(token));
}

/** Signs the account out on every browser; returns how many sessions ended. */
export async function endAllSessions(deps: SessionDeps, accountId: string): Promise<number> {
  return deps.sessions.deleteForAccount(accountId);
}
