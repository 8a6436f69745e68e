// The named fields of each content type, read from its zod schema, and a valid object of each: for tests that go
// through every field.
import { z } from 'zod';
import { contentEncoderFor, QR_TYPES, type QrType } from '../../src/domain/content/index.js';

/**
 * A valid object for each type with named fields; a test swaps one field for its own value. A new type must add one.
 */
export const VALID_FIELDS: Record<string, Record<string, unknown>> = {
  wifi: { ssid: 'Home', password: 'correct horse', encryption: 'WPA' },
  vcard: { firstName: 'Ana', lastName: 'Silva' },
  pix: { key: '123e4567-e12b-12d1-a456-426655440000', name: 'Fulano de Tal', city: 'BRASILIA' },
  whatsapp: { phone: '+55 11 98765-4321' },
  email: { to: 'ana@example.com' },
  sms: { phone: '+14155550100' },
  epc: { name: 'Red Cross', iban: 'BE72000000001616', text: 'Urgency fund' },
  upi: { vpa: 'shop@okaxis', name: 'Corner Shop' },
  geo: { latitude: 13.4125, longitude: 103.8667 },
  event: { summary: 'Launch', start: '2026-12-01T17:00:00Z' },
  mecard: { name: 'Lovelace,Ada' },
};

type Properties = Record<string, { type?: string; maxLength?: number; enum?: unknown[] }>;

/** The types whose content may be an object of named fields. */
export const TYPES_WITH_FIELDS: QrType[] = QR_TYPES.filter(
  (type) => contentEncoderFor(type).objectSchema !== undefined,
);

/** Free-text fields of a type (an enum is bounded by its values), with the maximum its schema declares, if any. */
export function stringFields(type: QrType): Array<{ type: QrType; name: string; max: number | undefined }> {
  const schema = contentEncoderFor(type).objectSchema;
  if (!schema) return [];
  const properties =
    (z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties?: Properties }).properties ?? {};
  return Object.entries(properties)
    .filter(([, property]) => property.type === 'string' && property.enum === undefined)
    .map(([name, property]) => ({ type, name, max: property.maxLength }));
}
