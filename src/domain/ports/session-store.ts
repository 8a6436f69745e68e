// Port: server-side portal sessions, so every session can be looked up, expired and revoked.

/** OIDC providers the portal signs in with (local sign-in needs no round trip). */
export type OidcProvider = 'google' | 'microsoft';

/** A provider sign-in in flight: what its callback must present, single-use. */
export interface PendingSignIn {
  provider: OidcProvider;
  /** The OAuth `state` sent to the provider; the callback must return it unchanged. */
  state: string;
  /** The OIDC `nonce` sent to the provider; the id_token must carry it. */
  nonce: string;
}

export interface Session {
  /** Store key. The HTTP layer stores a digest of the cookie value here, never the cookie value itself. */
  id: string;
  /** The signed-in identity's own account; undefined while the session only carries a sign-in in progress. */
  accountId: string | undefined;
  /** The account in use when it is another one the identity is a member of; undefined: its own. */
  activeAccountId: string | undefined;
  /** Secret the CSRF tokens of this session are derived from. */
  csrfSecret: string;
  /** When this session id was issued (a new id at every sign-in: rotation). */
  createdAt: Date;
  expiresAt: Date;
  pendingSignIn: PendingSignIn | undefined;
}

/**
 * Contract (test/contracts/session-store.contract.ts):
 * - `find` and `take` never return a session whose `expiresAt` is at or before `now`.
 * - `take` removes and returns in one atomic step: of any number of concurrent takes of one id,
 *   at most one gets the session (a sign-in state or pre-sign-in session is usable once).
 * - `delete` and `deleteForAccount` take effect for every later `find`, on every instance.
 * - sessions round-trip exactly (dates to the millisecond, pendingSignIn and activeAccountId included).
 */
export interface SessionStore {
  /** Stores a new session under its (random, unique) id. */
  create(session: Session): Promise<void>;
  find(id: string, now: Date): Promise<Session | undefined>;
  take(id: string, now: Date): Promise<Session | undefined>;
  /** Removes the session; removing a missing one is not an error. */
  delete(id: string): Promise<void>;
  /** Removes every session of the account ("sign out everywhere"); returns how many there were. */
  deleteForAccount(accountId: string): Promise<number>;
}
