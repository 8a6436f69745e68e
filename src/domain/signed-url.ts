// Signed image URLs (the imgix model): the canonical string a URL is signed over, the signature, and the signing key
// formats.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNING_KEY_ID_PREFIX = 'sk_';
export const SIGNING_SECRET_PREFIX = 'qrs_';
/** An account holds at most this many active (unrevoked) signing keys. */
export const MAX_ACTIVE_SIGNING_KEYS = 5;
/** A signing key's name, a label for its owner, has at most this many characters. */
export const SIGNING_KEY_NAME_MAX = 64;
/** Query parameters a signed URL may carry: far more than every option, few enough that parsing stays trivial. */
export const MAX_SIGNED_PARAMS = 64;
/** A signing key's id: what a URL names, so it is plain base64url. */
export const SIGNING_KEY_ID = /^sk_[A-Za-z0-9_-]{20}$/;
/** Cache lifetime of a signed image without `exp`: a year, as an immutable resource. */
export const SIGNED_MAX_AGE_SECONDS = 31_536_000;

export function newSigningKeyId(): string {
  return `${SIGNING_KEY_ID_PREFIX}${randomBytes(15).toString('base64url')}`;
}

/** 32 random bytes: the HMAC key is the whole secret string, prefix included, as UTF-8. */
export function newSigningSecret(): string {
  return `${SIGNING_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** RFC 3986 percent-encoding: encodeURIComponent, plus the five characters it leaves alone that RFC 3986 reserves. */
export function rfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * The path, `?`, then every parameter but `sig` as `enc(name)=enc(value)`, sorted by name then value, joined by `&`.
 * Sorted on the encoded strings (ASCII, so every language's plain string order agrees).
 */
export function canonicalString(path: string, params: ReadonlyArray<readonly [string, string]>): string {
  const pairs = params
    .filter(([name]) => name !== 'sig')
    .map(([name, value]) => [rfc3986(name), rfc3986(value)] as const);
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return `${path}?${pairs.map(([name, value]) => `${name}=${value}`).join('&')}`;
}

/** base64url without padding of HMAC-SHA256(secret, canonical string). */
export function signCanonical(secret: string, canonical: string): string {
  return createHmac('sha256', secret).update(canonical).digest('base64url');
}

/** Constant-time comparison of a presented signature with the expected one. */
export function signatureMatches(secret: string, canonical: string, presented: string): boolean {
  const expected = Buffer.from(signCanonical(secret, canonical));
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A complete signed URL path and query, as the SDK helpers build it: what the tests and the docs' script do too. */
export function signedImagePath(
  keyId: string,
  secret: string,
  format: string,
  params: Record<string, string | number | boolean>,
): string {
  const path = `/i/${rfc3986(keyId)}/${rfc3986(format)}`;
  const pairs = Object.entries(params).map(([name, value]) => [name, String(value)] as const);
  const canonical = canonicalString(path, pairs);
  return `${canonical}&sig=${signCanonical(secret, canonical)}`;
}

/**
 * A query string as pairs, in order, percent-decoded; `+` reads as a space (as URLSearchParams writes one), so URLs
 * built either way verify. Undefined when the encoding is malformed.
 */
export function parseQuery(query: string): Array<[string, string]> | undefined {
  const pairs: Array<[string, string]> = [];
  if (query === '') return pairs;
  for (const part of query.split('&')) {
    if (part === '') continue;
    const equals = part.indexOf('=');
    const rawName = equals === -1 ? part : part.slice(0, equals);
    const rawValue = equals === -1 ? '' : part.slice(equals + 1);
    try {
      pairs.push([decodeURIComponent(rawName.replaceAll('+', ' ')), decodeURIComponent(rawValue.replaceAll('+', ' '))]);
    } catch {
      return undefined;
    }
  }
  return pairs;
}
