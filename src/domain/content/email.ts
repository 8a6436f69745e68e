// email content: an RFC 6068 `mailto:` URI, built from an address (and subject, body) or checked when ready.
import { z } from 'zod';
import { invalidContent } from '../errors.js';
import { boundedString, MAX_EMAIL_CHARS, MAX_TEXT_CHARS } from './limits.js';
import { readyOrBare, structuredContent } from './structured-content.js';
import { encodeUriValue } from './uri-component.js';

export interface EmailFields {
  to: string;
  subject?: string | undefined;
  body?: string | undefined;
}

export const emailFieldsSchema = z.strictObject({
  to: boundedString(MAX_EMAIL_CHARS).min(1, 'must not be empty'),
  subject: boundedString(MAX_TEXT_CHARS)
    .min(1, 'must not be empty (omit it for no subject)')
    .regex(/^[^\r\n]*$/, 'must be a single line (a mail header cannot hold line breaks)')
    .optional(),
  body: boundedString(MAX_TEXT_CHARS).min(1, 'must not be empty (omit it for no body)').optional(),
});

const MAILTO = /^mailto:/i;
// Dot-atom local part (RFC 5322 atext), UTF-8 allowed (RFC 6531); quoted local parts are not accepted.
const LOCAL_PART = /^[\p{L}\p{M}\p{N}!#$%&'*+/=?^_`{|}~-]+(\.[\p{L}\p{M}\p{N}!#$%&'*+/=?^_`{|}~-]+)*$/u;
// ASCII host names; an internationalised domain is given in its xn-- (punycode) form.
const DOMAIN =
  /^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+(?!\d+$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
// Characters that may stand unencoded in a mailto address (RFC 6068 §2): unreserved and a few
// sub-delims. `%`, `/`, `?`, `#`, `&`, `=` and the like are encoded; `,` would split recipients.
const ADDRESS_SAFE = /[^A-Za-z0-9\-._~!$'*+@]/gu;
// Every character a URI may hold (RFC 3986), and percent escapes that are whole.
const URI_CHARS = /^([A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;

function checkAddress(address: string, field: string): void {
  const at = address.lastIndexOf('@');
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (at <= 0 || !LOCAL_PART.test(local) || !DOMAIN.test(domain)) {
    throw invalidContent(field, 'must be an email address such as name@example.com');
  }
  if (new TextEncoder().encode(local).length > 64)
    throw invalidContent(field, 'must have a local part of at most 64 bytes');
}

/** Percent-encodes the address only where a mailto URI needs it (in practice, the local part). */
function encodeAddress(address: string): string {
  return address.replace(ADDRESS_SAFE, (char) => encodeURIComponent(char));
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw invalidContent('content', 'must hold only valid percent-encoded UTF-8');
  }
}

/** Checks a ready `mailto:` URI: URI characters only, every recipient an address, hfields well formed. */
function checkMailto(uri: string): void {
  const rest = uri.replace(MAILTO, '');
  if (!URI_CHARS.test(rest))
    throw invalidContent('content', 'must be a URI: percent-encode spaces and non-ASCII characters');
  if (rest.includes('#')) throw invalidContent('content', 'must not have a #fragment');
  const [to = '', query] = rest.split(/\?(.*)/s);
  const recipients = to === '' ? [] : to.split(',');
  for (const field of query ? query.split('&') : []) {
    const match = /^([^=]+)=(.*)$/s.exec(field);
    if (!match) throw invalidContent('content', `header field "${field}" must look like name=value`);
    const value = decode(match[2] ?? '');
    if (match[1]?.toLowerCase() === 'to' && value !== '') recipients.push(...value.split(','));
  }
  if (recipients.length === 0) throw invalidContent('content', 'must name at least one recipient');
  for (const recipient of recipients) checkAddress(decode(recipient), 'content');
}

/** Line breaks in a body are CRLF in mail (RFC 6068 §5), whichever the caller sent. */
function crlf(text: string): string {
  return text.replace(/\r\n|\r|\n/g, '\r\n');
}

function buildMailto(fields: EmailFields): string {
  checkAddress(fields.to, 'content.to');
  const headers: string[] = [];
  if (fields.subject !== undefined) headers.push(`subject=${encodeUriValue(fields.subject, 'content.subject')}`);
  if (fields.body !== undefined) headers.push(`body=${encodeUriValue(crlf(fields.body), 'content.body')}`);
  const uri = `mailto:${encodeAddress(fields.to)}`;
  return headers.length === 0 ? uri : `${uri}?${headers.join('&')}`;
}

/** A bare address, checked, as a `mailto:` URI. */
function mailtoOf(address: string): string {
  checkAddress(address, 'content');
  return `mailto:${encodeAddress(address)}`;
}

export const emailContent = structuredContent('email', emailFieldsSchema, {
  ready: 'an address, a mailto: URI',
  fromString: readyOrBare(MAILTO, checkMailto, mailtoOf),
  fromFields: buildMailto,
});
