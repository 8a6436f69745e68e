// The longest text each content field may hold: every string is bounded before any rule reads it.
import { z } from 'zod';

/**
 * What a version 40 code holds at error correction L, per encoding mode (ISO/IEC 18004 Table 7).
 * A string longer than a mode's figure cannot be encoded in that mode at any setting.
 */
export const QR_CAPACITY = { numeric: 7089, alphanumeric: 4296, byte: 2953 } as const;

/** A ready payload string: no QR code holds more characters than an all-digit one. */
export const MAX_PAYLOAD_CHARS = QR_CAPACITY.numeric;

/**
 * A free-text field of a payload that is always byte mode (it holds lowercase letters, `;` or line
 * breaks, which the numeric and alphanumeric modes lack): each character is at least one byte.
 */
export const MAX_TEXT_CHARS = QR_CAPACITY.byte;

/** A phone number: 15 digits (E.164) with generous room for spaces and punctuation. */
export const MAX_PHONE_CHARS = 64;

/** An e-mail address: 64-octet local part, `@`, 255-octet domain (RFC 5321 §4.5.3.1). */
export const MAX_EMAIL_CHARS = 320;

/**
 * A string schema with its maximum, which the OpenAPI document shows as maxLength; `message` when a field's own rule
 * says it better.
 */
export function boundedString(max: number, message = `must be at most ${max} characters`) {
  return z.string().max(max, message);
}
