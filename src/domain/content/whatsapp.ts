// whatsapp content: a wa.me click-to-chat link, built from a phone number (and message) or checked when ready.
import { z } from 'zod';
import { invalidContent } from '../errors.js';
import { boundedString, MAX_PHONE_CHARS, MAX_TEXT_CHARS } from './limits.js';
import { readPhoneNumber } from './phone-number.js';
import { readyOrBare, structuredContent } from './structured-content.js';

export interface WhatsappFields {
  phone: string;
  message?: string | undefined;
}

export const whatsappFieldsSchema = z.strictObject({
  phone: boundedString(MAX_PHONE_CHARS).min(1, 'must not be empty'),
  message: boundedString(MAX_TEXT_CHARS).min(1, 'must not be empty (omit it for no message)').optional(),
});

const WA_ME = 'https://wa.me/';
// E.164: at most 15 digits with the country code; fewer than 8 is no reachable number.
const MIN_DIGITS = 8;
const MAX_DIGITS = 15;

/** The bare digits wa.me wants, from a number written with any usual punctuation. */
function phoneDigits(phone: string, field: string): string {
  return readPhoneNumber(phone, field, { min: MIN_DIGITS, max: MAX_DIGITS, hint: ', country code first (E.164)' })
    .digits;
}

function percentEncode(text: string, field: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    // encodeURIComponent throws URIError on a lone surrogate, which has no UTF-8 form.
    throw invalidContent(field, 'must be valid Unicode (lone surrogate found)');
  }
}

/** Accepts exactly `https://wa.me/<digits>` with an optional, well-encoded `?text=`. */
function checkWaMeLink(link: string): void {
  const match = /^https:\/\/wa\.me\/([^?#]*)(?:\?([^#]*))?$/.exec(link);
  if (!match) throw invalidContent('content', 'must be https://wa.me/<number>[?text=...] without a #fragment');
  const [, number = '', query] = match;
  if (!/^\d+$/.test(number) || number.length < MIN_DIGITS || number.length > MAX_DIGITS) {
    const detail =
      `must name ${MIN_DIGITS} to ${MAX_DIGITS} digits after https://wa.me/ ` +
      '(country code first, no + or punctuation)';
    throw invalidContent('content', detail);
  }
  if (query === undefined) return;
  const text = /^text=([^&\s]*)$/.exec(query)?.[1];
  if (text === undefined) throw invalidContent('content', 'may only carry one text= parameter, percent-encoded');
  try {
    decodeURIComponent(text);
  } catch {
    throw invalidContent('content', 'text= must be valid percent-encoded UTF-8');
  }
}

function buildLink(fields: WhatsappFields): string {
  const link = WA_ME + phoneDigits(fields.phone, 'content.phone');
  return fields.message === undefined ? link : `${link}?text=${percentEncode(fields.message, 'content.message')}`;
}

export const whatsappContent = structuredContent('whatsapp', whatsappFieldsSchema, {
  ready: 'a phone number, a https://wa.me/ link',
  fromString: readyOrBare(WA_ME, checkWaMeLink, (phone) => WA_ME + phoneDigits(phone, 'content')),
  fromFields: buildLink,
});
