// What each provider's verified id_token claims mean: the issuer it must come from, and whose identity it is.
import type { JWTPayload } from 'jose';
import type { VerifiedIdentity } from '../../domain/ports/id-token-verifier.js';
import type { OidcProvider } from '../../domain/ports/session-store.js';

/** A claim problem, reported by the verifier as `unauthorized`. */
export class ClaimError extends Error {
  override name = 'ClaimError';
}

// Microsoft tenant and object ids are GUIDs; anything else (a `/`, say) must not reach an issuer template.
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function stringClaim(payload: JWTPayload, name: string): string | undefined {
  const value = payload[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The issuers a token may name. Microsoft: the discovery issuer is a template for the multi-tenant
 * endpoints, so the token's own `tid` is substituted and `iss` must equal the result exactly.
 * Google: the documented issuer, or the same without its scheme (Google issues both forms).
 */
export function expectedIssuers(provider: OidcProvider, issuer: string, payload: JWTPayload): string[] {
  if (provider === 'microsoft') {
    if (!issuer.includes('{tenantid}')) return [issuer];
    const tid = stringClaim(payload, 'tid');
    if (!tid || !GUID.test(tid)) throw new ClaimError('tid is missing or not a tenant id');
    return [issuer.replaceAll('{tenantid}', tid)];
  }
  return issuer.startsWith('https://') ? [issuer, issuer.slice('https://'.length)] : [issuer];
}

/** Accounts are keyed by provider + subject (Microsoft: tid:oid), never by e-mail. */
export function identityOf(provider: OidcProvider, payload: JWTPayload): VerifiedIdentity {
  if (provider === 'microsoft') {
    const tid = stringClaim(payload, 'tid');
    const oid = stringClaim(payload, 'oid');
    if (!tid || !GUID.test(tid) || !oid || !GUID.test(oid)) throw new ClaimError('tid and oid must be present');
    // `email` is optional in Microsoft tokens; preferred_username is the sign-in name. Display only either way.
    const email = stringClaim(payload, 'email') ?? stringClaim(payload, 'preferred_username') ?? '';
    return { identity: { provider, subject: `${tid}:${oid}` }, email };
  }
  const sub = stringClaim(payload, 'sub');
  if (!sub) throw new ClaimError('sub must be present');
  const verified = payload.email_verified;
  if (verified === false || verified === 'false') throw new ClaimError('the Google e-mail address is not verified');
  return { identity: { provider, subject: sub }, email: stringClaim(payload, 'email') ?? '' };
}
