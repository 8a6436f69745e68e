// Where a sign-in may return to: an invitation's page of this portal only, as a same-origin path, never elsewhere.
const RETURN_PATH = /^\/invitations\/[A-Za-z0-9_-]{1,100}$/;

/** `next` when it is this portal's invitation page (`<base>/invitations/<token>`), else undefined: no open redirect. */
export function returnPathIn(base: string, next: string | undefined): string | undefined {
  return next?.startsWith(base) && RETURN_PATH.test(next.slice(base.length)) ? next : undefined;
}
