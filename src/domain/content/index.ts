// Content registry: picks the encoder for a type and turns request content into the QR payload.
import { emailContent } from './email.js';
import { epcContent } from './epc.js';
import { eventContent } from './event.js';
import { geoContent } from './geo.js';
import { mecardContent } from './mecard.js';
import { pixContent } from './pix.js';
import { smsContent } from './sms.js';
import { telContent } from './tel.js';
import { textContent } from './text.js';
import type { ContentEncoder, QrType } from './types.js';
import { upiContent } from './upi.js';
import { urlContent } from './url.js';
import { vcardContent } from './vcard.js';
import { whatsappContent } from './whatsapp.js';
import { wifiContent } from './wifi.js';

export { QR_TYPES, type QrType, type ContentEncoder } from './types.js';

const ENCODERS: Record<QrType, ContentEncoder> = {
  url: urlContent,
  text: textContent,
  wifi: wifiContent,
  vcard: vcardContent,
  pix: pixContent,
  whatsapp: whatsappContent,
  email: emailContent,
  sms: smsContent,
  epc: epcContent,
  upi: upiContent,
  geo: geoContent,
  tel: telContent,
  event: eventContent,
  mecard: mecardContent,
};

export function contentEncoderFor(type: QrType): ContentEncoder {
  return ENCODERS[type];
}

/** The exact text the QR code for this request will hold. */
export function encodeContent(type: QrType, content: unknown): string {
  return ENCODERS[type].encode(content);
}
