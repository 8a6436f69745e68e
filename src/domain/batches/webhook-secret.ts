// An account's webhook signing secrets: how one is made, and which of them sign at a given moment.
import { randomBytes } from 'node:crypto';

/** A new signing secret: `whsec_` and the base64 of 32 random bytes (the Standard Webhooks form). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The secrets that sign at `now` (epoch milliseconds): the current one first, then the one a rotation replaced while
 * `now` is before the end of its overlap.
 */
export function signingSecretsAt(
  current: string,
  previous: string | null | undefined,
  previousUntil: number | null | undefined,
  now: number,
): string[] {
  return previous && previousUntil !== null && previousUntil !== undefined && now < previousUntil
    ? [current, previous]
    : [current];
}
