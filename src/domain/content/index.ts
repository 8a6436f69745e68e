// Content registry: picks the encoder for a type and turns request content into the QR payload.
import { ApiError } from '../errors.js';
import { textContent } from './text.js';
import type { ContentEncoder, QrType } from './types.js';
import { urlContent } from './url.js';

export { QR_TYPES, type QrType, type ContentEncoder } from './types.js';

const ENCODERS: Partial<Record<QrType, ContentEncoder>> = {
  url: urlContent,
  text: textContent,
};

export function contentEncoderFor(type: QrType): ContentEncoder | undefined {
  return ENCODERS[type];
}

/** The exact text the QR code for this request will hold. */
export function encodeContent(type: QrType, content: unknown): string {
  const encoder = ENCODERS[type];
  if (!encoder) {
    throw new ApiError('unsupported_type', `type '${type}' is part of the API but not available on this server yet`, {
      fields: [{ field: 'type', detail: 'not available yet' }],
    });
  }
  return encoder.encode(content);
}
