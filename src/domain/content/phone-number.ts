// Phone numbers as people write them: digits with an optional leading + and the usual punctuation.
import { invalidContent } from '../errors.js';
import { MAX_PHONE_CHARS } from './limits.js';

// One character class, anchored: linear on any input (the guard in test/unit/regex-safety.test.ts checks it).
const PHONE_CHARACTERS = /^\+?[\d\s().\-/]+$/;
const DIGIT = /\d/;
const NOT_DIGIT = /\D/g;

export const PHONE_FORMAT = 'must be a phone number: digits with an optional leading + and spaces ( ) - . /';

/** True when the text is written like a phone number and holds at least one digit (no count rule). */
export function looksLikePhoneNumber(text: string): boolean {
  return text.length <= MAX_PHONE_CHARS && PHONE_CHARACTERS.test(text) && DIGIT.test(text);
}

export interface PhoneDigitRule {
  min: number;
  max: number;
  /** Appended to the count rule's message, e.g. `, country code first (E.164)`. */
  hint?: string;
}

export interface PhoneNumber {
  /** The number began with `+`. */
  international: boolean;
  digits: string;
}

/** Reads a written phone number down to its digits, refusing other characters and a digit count outside the rule. */
export function readPhoneNumber(text: string, field: string, rule: PhoneDigitRule): PhoneNumber {
  if (text.length > MAX_PHONE_CHARS) throw invalidContent(field, `must be at most ${MAX_PHONE_CHARS} characters`);
  if (!PHONE_CHARACTERS.test(text)) throw invalidContent(field, PHONE_FORMAT);
  const digits = text.replace(NOT_DIGIT, '');
  if (digits.length < rule.min || digits.length > rule.max) {
    throw invalidContent(field, `must have ${rule.min} to ${rule.max} digits${rule.hint ?? ''}; has ${digits.length}`);
  }
  return { international: text.startsWith('+'), digits };
}
