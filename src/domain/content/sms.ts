// sms content: the `SMSTO:<number>:<message>` payload phones open in their messaging app, built or checked when ready.
import { z } from 'zod';
import { boundedString, MAX_PHONE_CHARS, QR_CAPACITY } from './limits.js';
import { readPhoneNumber } from './phone-number.js';
import { readyOrBare, structuredContent } from './structured-content.js';

export interface SmsFields {
  phone: string;
  message?: string | undefined;
}

export const smsFieldsSchema = z.strictObject({
  phone: boundedString(MAX_PHONE_CHARS).min(1, 'must not be empty'),
  // An all-uppercase message keeps the payload alphanumeric, which holds more than byte mode.
  message: boundedString(QR_CAPACITY.alphanumeric).min(1, 'must not be empty (omit it for no message)').optional(),
});

// The only spellings ZXing's SMSTO parser recognises (it compares case-sensitively).
const READY_PREFIX = /^(SMSTO|smsto):/;
// Short codes (3 to 6 digits) are real SMS destinations, so only E.164's upper bound applies.
const DIGITS = { min: 3, max: 15 };

/** The number as SMS apps want it: a leading + kept, then digits only. */
function smsNumber(phone: string, field: string): string {
  const { international, digits } = readPhoneNumber(phone, field, DIGITS);
  return (international ? '+' : '') + digits;
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

export const smsContent = structuredContent('sms', smsFieldsSchema, {
  ready: 'a phone number, a ready SMSTO: string',
  fromString: readyOrBare(READY_PREFIX, checkReady, (phone) => `SMSTO:${smsNumber(phone, 'content')}`),
  fromFields: buildSms,
});
