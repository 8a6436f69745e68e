// sms content: the `SMSTO:<number>:<message>` payload phones open in their messaging app, built or checked when ready.
import { z } from 'zod';
import { invalidContent } from '../errors.js';
import type { ContentEncoder } from './types.js';
import { readFields } from './fields.js';

export interface SmsFields {
  phone: string;
  message?: string | undefined;
}

export const smsFieldsSchema = z.strictObject({
  phone: z.string().min(1, 'must not be empty'),
  message: z.string().min(1, 'must not be empty (omit it for no message)').optional(),
});

// The only spellings ZXing's SMSTO parser recognises (it compares case-sensitively).
const READY_PREFIX = /^(SMSTO|smsto):/;
const PHONE_PUNCTUATION = /^\+?[\d\s().\-/]+$/;
// Short codes (3 to 6 digits) are real SMS destinations, so only E.164's upper bound applies.
const MIN_DIGITS = 3;
const MAX_DIGITS = 15;

/** The number as SMS apps want it: a leading + kept, then digits only. */
function smsNumber(phone: string, field: string): string {
  if (!PHONE_PUNCTUATION.test(phone)) {
    throw invalidContent(field, 'must be a phone number: digits with an optional leading + and spaces ( ) - . /');
  }
  const digits = phone.replace(/\D/g, '');
  if (digits.length < MIN_DIGITS || digits.length > MAX_DIGITS) {
    throw invalidContent(field, `must have ${MIN_DIGITS} to ${MAX_DIGITS} digits; has ${digits.length}`);
  }
  return (phone.startsWith('+') ? '+' : '') + digits;
}

/**
 * With no message the payload is `SMSTO:<number>`, without a trailing colon: ZXing splits number
 * and body at the first `:` after the prefix and reads a missing one as "no body", and the number
 * can hold no colon, so a message may contain colons freely.
 */
function buildSms(fields: SmsFields): string {
  const number = `SMSTO:${smsNumber(fields.phone, 'content.phone')}`;
  return fields.message === undefined ? number : `${number}:${fields.message}`;
}

/** Checks a ready `SMSTO:number[:message]` string: only the number has rules. */
function checkReady(payload: string): void {
  const rest = payload.replace(READY_PREFIX, '');
  const colon = rest.indexOf(':');
  smsNumber(colon === -1 ? rest : rest.slice(0, colon), 'content');
}

/** Checks the object form and reports its first broken rule against `content.<field>`. */
export const smsContent: ContentEncoder = {
  type: 'sms',
  objectSchema: smsFieldsSchema,
  encode(content) {
    if (typeof content === 'string') {
      if (!READY_PREFIX.test(content)) return `SMSTO:${smsNumber(content, 'content')}`;
      checkReady(content);
      // A ready string is encoded as given: the caller decides what the code holds.
      return content;
    }
    if (typeof content !== 'object' || content === null || Array.isArray(content)) {
      throw invalidContent('content', 'must be a phone number, a ready SMSTO: string or an object {phone, message?}');
    }
    return buildSms(readFields(smsFieldsSchema, 'sms', content));
  },
};
