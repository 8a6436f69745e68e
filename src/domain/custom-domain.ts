// Custom domains: an account's own hostname for its dynamic codes' short URLs, the rules for hostnames and vanity
// slugs, and the record the stores keep.
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';

/**
 * pending: waiting for its DNS proof (expires after PENDING_LIFETIME_MS); active: proved, takes codes; suspended: its
 * proof
 * was gone at a re-check (its codes stop answering until the proof is back); expired: never proved in time.
 */
export const DOMAIN_STATUSES = ['pending', 'active', 'suspended', 'expired'] as const;
export type DomainStatus = (typeof DOMAIN_STATUSES)[number];

export interface CustomDomain {
  id: string;
  accountId: string;
  /** Lowercase ASCII (IDNA hostnames in their punycode form), no port, no trailing dot. */
  hostname: string;
  status: DomainStatus;
  /**
   * The value of the TXT record `_qrm-challenge.<hostname>` that proves the claim (and what the well-known URL
   * answers).
   */
  token: string;
  createdAt: Date;
  verifiedAt: Date | null;
  /** The last check of the domain: when, and why it did not pass (null: it passed). */
  lastCheck: { at: Date; problem: string | null } | null;
}

/**
 * Where a code lives on a custom domain: `https://<hostname>/<slug>`. The hostname is kept with the code (it never
 * changes for a domain id).
 */
export interface Vanity {
  domainId: string;
  hostname: string;
  slug: string;
}

/** A code's place on a custom domain as stored, in three fields: all set, or none (the code has no vanity slug). */
export function vanityFrom(
  domainId: string | null | undefined,
  hostname: string | null | undefined,
  slug: string | null | undefined,
): Vanity | null {
  return domainId && hostname && slug ? { domainId, hostname, slug } : null;
}

export const DOMAIN_ID = /^dom_[A-Za-z0-9_-]{20}$/;
export const HOSTNAME_MAX_LENGTH = 253;
/** A vanity slug: 3–64 of a-z, 0-9, `-` and `_`. */
export const VANITY_SLUG_PATTERN = /^[a-z0-9_-]{3,64}$/;
export const VANITY_SLUG_LENGTH = { min: 3, max: 64 } as const;
/** The path an operator's hostname must route to this service for the automatic check. */
export const VERIFICATION_PATH = '/.well-known/qrm-domain/';
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{32}$/;

export function newDomainId(): string {
  return `dom_${randomBytes(15).toString('base64url')}`;
}

export function newVerificationToken(): string {
  return randomBytes(24).toString('base64url');
}

/** The DNS name whose TXT record proves a claim: `_qrm-challenge.<hostname>`. */
export const PROOF_LABEL = '_qrm-challenge';

export function proofName(hostname: string): string {
  return `${PROOF_LABEL}.${hostname}`;
}

/** A pending claim not proved within this long expires (and frees its hostname). */
export const PENDING_LIFETIME_MS = 7 * 24 * 60 * 60_000;

export function verificationUrl(domain: Pick<CustomDomain, 'hostname' | 'token'>): string {
  return `http://${domain.hostname}${VERIFICATION_PATH}${domain.token}`;
}

export function vanityUrl(vanity: Pick<Vanity, 'hostname' | 'slug'>): string {
  return `https://${vanity.hostname}/${vanity.slug}`;
}

const LABEL_CHARACTERS = /^[a-z0-9-]+$/;
const ALL_DIGITS = /^[0-9]+$/;

/**
 * The hostname as stored (lowercase ASCII, IDNA as punycode, trailing dot dropped), or why it is refused: IP literals,
 * single labels (`localhost`), ports, paths and anything DNS could not name are refused.
 */
export function normalisedHostname(input: string): { hostname: string } | { problem: string } {
  const trimmed = input.trim().toLowerCase();
  if (trimmed.length === 0) return { problem: 'must not be empty' };
  if (trimmed.length > HOSTNAME_MAX_LENGTH) return { problem: `must be at most ${HOSTNAME_MAX_LENGTH} characters` };
  if (trimmed.startsWith('[') || isIP(trimmed) !== 0) return { problem: 'must be a hostname, not an IP address' };
  if (/[/:?#@\s\\]/u.test(trimmed))
    return { problem: 'must be a bare hostname (no scheme, port, path or credentials)' };
  const withoutDot = trimmed.endsWith('.') ? trimmed.slice(0, -1) : trimmed;
  const ascii = domainToASCII(withoutDot);
  if (ascii === '' || ascii.length > HOSTNAME_MAX_LENGTH) return { problem: 'is not a valid hostname' };
  if (isIP(ascii) !== 0) return { problem: 'must be a hostname, not an IP address' };
  const labels = ascii.split('.');
  if (labels.length < 2) return { problem: 'must have at least two labels (e.g. go.example.com)' };
  for (const label of labels) {
    if (
      label.length === 0 ||
      label.length > 63 ||
      !LABEL_CHARACTERS.test(label) ||
      label.startsWith('-') ||
      label.endsWith('-')
    ) {
      return { problem: 'is not a valid hostname (labels of 1–63 letters, digits and inner hyphens)' };
    }
  }
  // A numeric last label is how an IPv4 address in another notation (0x7f.1, 127.1) would slip through.
  if (ALL_DIGITS.test(labels.at(-1)!)) return { problem: 'must be a hostname, not an IP address' };
  if (labels.at(-1) === 'localhost') return { problem: 'must be a public hostname' };
  return { hostname: ascii };
}

/**
 * The hostname a request's Host header names: lowercase, without port or trailing dot; undefined when it names none.
 */
export function hostOf(hostHeader: string | undefined): string | undefined {
  if (hostHeader === undefined || hostHeader.length === 0 || hostHeader.length > HOSTNAME_MAX_LENGTH + 7)
    return undefined;
  let host = hostHeader.toLowerCase();
  if (host.startsWith('[')) return undefined;
  const colon = host.indexOf(':');
  if (colon !== -1) host = host.slice(0, colon);
  if (host.endsWith('.')) host = host.slice(0, -1);
  return host.length === 0 ? undefined : host;
}
