// Use cases for portal sign-in: a provider round trip bound to a single-use pre-sign-in session, or local sign-in by
// e-mail.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../domain/errors.js';
import type { PlanCatalogue } from '../domain/plan-catalogue.js';
import type { Account, AccountStore } from '../domain/ports/account-store.js';
import type { IdTokenVerifier } from '../domain/ports/id-token-verifier.js';
import type { OidcProvider, PendingSignIn } from '../domain/ports/session-store.js';
import { accountForIdentity, createLocalAccount } from './accounts.js';
import {
  endSession,
  openSession,
  resolveSession,
  SIGN_IN_TTL_MS,
  SIGNED_IN_TTL_MS,
  takeSession,
  type IssuedSession,
  type SessionDeps,
} from './sessions.js';

export interface SignInDeps extends SessionDeps {
  accounts: AccountStore;
  /** New accounts start on its default plan. */
  plans: PlanCatalogue;
}

export interface ProviderSignInDeps extends SignInDeps {
  verifier: IdTokenVerifier;
}

export interface StartedSignIn {
  /** The pre-sign-in session, whose token becomes the browser's cookie. */
  session: IssuedSession;
  state: string;
  nonce: string;
}

export interface SignedIn {
  account: Account;
  /** A new session id: any session the browser held before is gone (rotation). */
  session: IssuedSession;
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Starts a provider sign-in: the state and nonce live server-side in a short pre-sign-in session
 * whose token only this browser holds. The browser's current session, if any, ends here.
 */
export async function beginProviderSignIn(
  deps: SessionDeps,
  provider: OidcProvider,
  currentToken: string | undefined,
): Promise<StartedSignIn> {
  await endSession(deps, currentToken);
  const pendingSignIn: PendingSignIn = {
    provider,
    state: randomBytes(24).toString('base64url'),
    nonce: randomBytes(24).toString('base64url'),
  };
  const session = await openSession(deps, { pendingSignIn, ttlMs: SIGN_IN_TTL_MS });
  return { session, state: pendingSignIn.state, nonce: pendingSignIn.nonce };
}

const NOT_STARTED_HERE =
  'this sign-in was not started in this browser, has expired, or was already used; please sign in again';

/**
 * Claims the sign-in in progress for the callback's `state`. Single use: the pre-sign-in session is
 * taken before it is compared, so a forged state burns it and a replayed callback finds nothing.
 * A signed-in session is never taken here, so a forged callback link cannot sign anyone out.
 */
export async function claimPendingSignIn(
  deps: SessionDeps,
  token: string | undefined,
  provider: OidcProvider,
  returnedState: string | undefined,
): Promise<PendingSignIn> {
  const current = await resolveSession(deps, token);
  if (!current?.pendingSignIn) throw new ApiError('forbidden', NOT_STARTED_HERE);
  const pending = (await takeSession(deps, token))?.pendingSignIn;
  if (
    !pending ||
    pending.provider !== provider ||
    returnedState === undefined ||
    !sameSecret(pending.state, returnedState)
  ) {
    throw new ApiError('forbidden', NOT_STARTED_HERE);
  }
  return pending;
}

/** Verifies the id_token against the claimed nonce; the first sign-in of an identity creates a free account. */
export async function completeProviderSignIn(
  deps: ProviderSignInDeps,
  idToken: string | undefined,
  pending: PendingSignIn,
): Promise<SignedIn> {
  if (!idToken) throw new ApiError('unauthorized', 'the identity provider returned no id_token; please sign in again');
  const verified = await deps.verifier.verify(idToken, pending.nonce);
  const account = await accountForIdentity(deps, verified.identity, verified.email);
  return { account, session: await openSession(deps, { accountId: account.id, ttlMs: SIGNED_IN_TTL_MS }) };
}

/** A session for the local sign-in form, so the form can carry a CSRF token before anyone is signed in. */
export async function openSignInFormSession(deps: SessionDeps): Promise<IssuedSession> {
  return openSession(deps, { ttlMs: SIGN_IN_TTL_MS });
}

/**
 * Local sign-in (no provider configured; the HTTP layer allows it from loopback only): the e-mail
 * address is the identity under the `local` provider, the same account `qrm accounts create` makes.
 */
export async function localSignIn(
  deps: SignInDeps,
  currentToken: string | undefined,
  email: string,
): Promise<SignedIn> {
  const account = await createLocalAccount(deps, email, deps.plans.defaultPlan.id);
  await endSession(deps, currentToken);
  return { account, session: await openSession(deps, { accountId: account.id, ttlMs: SIGNED_IN_TTL_MS }) };
}
