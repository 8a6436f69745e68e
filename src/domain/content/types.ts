// The content types the API encodes, and the contract each per-type encoder fulfils.
import type { z } from 'zod';

export const QR_TYPES = [
  'url',
  'text',
  'wifi',
  'vcard',
  'pix',
  'whatsapp',
  'email',
  'sms',
  'epc',
  'upi',
  'geo',
  'tel',
  'event',
  'mecard',
] as const;
export type QrType = (typeof QR_TYPES)[number];

/**
 * Turns the caller's `content` for one type into the exact text the QR code will hold.
 * Pure: no I/O, deterministic. Throws ApiError `invalid_content` (via `invalidContent`) naming
 * the field (`content` for a string, `content.<name>` for an object member) and the rule broken.
 */
export interface ContentEncoder {
  readonly type: QrType;
  /** Schema of the object form, for types that accept named fields (documents the API). */
  readonly objectSchema?: z.ZodType;
  /** The error correction level the type's standard prescribes (EPC069-12: M); another requested level is refused. */
  readonly requiredErrorCorrection?: 'L' | 'M' | 'Q' | 'H';
  encode(content: unknown): string;
}
