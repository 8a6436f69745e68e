// Every string field of every content type has a documented maximum, and one character more is a 400 invalid_content naming the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contentEncoderFor, QR_TYPES } from '../../src/domain/content/index.js';
import { MAX_PAYLOAD_CHARS } from '../../src/domain/content/limits.js';
import { createTestApp, generate, type TestApp } from '../helpers/app.js';

/** A valid object for each type with named fields: the over-long field is swapped into it, so only that field is wrong. */
const VALID_FIELDS: Record<string, Record<string, unknown>> = {
  wifi: { ssid: 'Home', password: 'correct horse', encryption: 'WPA' },
  vcard: { firstName: 'Ana', lastName: 'Silva' },
  pix: { key: '123e4567-e12b-12d1-a456-426655440000', name: 'Fulano de Tal', city: 'BRASILIA' },
  whatsapp: { phone: '+55 11 98765-4321' },
  email: { to: 'ana@example.com' },
  sms: { phone: '+14155550100' },
};

type JsonSchema = { properties?: Record<string, { type?: string; maxLength?: number; enum?: unknown[] }> };

const fieldsOf = (type: (typeof QR_TYPES)[number]) => {
  const schema = contentEncoderFor(type).objectSchema;
  return schema ? (z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema).properties ?? {} : undefined;
};
const TYPES_WITH_FIELDS = QR_TYPES.filter((type) => fieldsOf(type) !== undefined);
const STRING_FIELDS = TYPES_WITH_FIELDS.flatMap((type) =>
  Object.entries(fieldsOf(type)!)
    // An enum is bounded by its values; every other string needs a maximum.
    .filter(([, property]) => property.type === 'string' && property.enum === undefined)
    .map(([name, property]) => ({ type, name, max: property.maxLength })),
);

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  key = (await t.newCaller('business')).key;
});
afterAll(async () => t?.close());

describe('maximum lengths of content', () => {
  it('every type with named fields has a valid sample here (a new type must add one)', () => {
    expect(TYPES_WITH_FIELDS.filter((type) => VALID_FIELDS[type] === undefined)).toEqual([]);
    expect(STRING_FIELDS.length).toBeGreaterThan(15);
  });

  it('every string field of every type declares a maximum in its schema (and so in the OpenAPI document)', () => {
    expect(STRING_FIELDS.filter((field) => field.max === undefined).map((field) => `${field.type}.${field.name}`)).toEqual([]);
  });

  it.each(STRING_FIELDS)('$type.$name: one character past $max is a 400 invalid_content naming content.$name', async ({ type, name, max }) => {
    const content = { ...VALID_FIELDS[type], [name]: '1'.repeat(max! + 1) };
    const res = await generate(t.app, key, { content, type, outputFormat: 'png' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_content', errors: [{ field: `content.${name}` }] });
  });

  it.each(QR_TYPES)(`%s: a ready string past ${MAX_PAYLOAD_CHARS} characters is a 400 invalid_content naming content`, async (type) => {
    const res = await generate(t.app, key, { content: '1'.repeat(MAX_PAYLOAD_CHARS + 1), type, outputFormat: 'png' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_content', errors: [{ field: 'content' }] });
  });

  it.each(QR_TYPES)('%s: the encoder itself bounds a ready string too (whatever route calls it)', (type) => {
    expect(() => contentEncoderFor(type).encode('1'.repeat(MAX_PAYLOAD_CHARS + 1))).toThrow(`at most ${MAX_PAYLOAD_CHARS} characters`);
  });

  it('the OpenAPI document shows the maximum of the ready string and of each named field', async () => {
    const document = JSON.stringify((await t.app.inject({ method: 'GET', url: '/openapi.json' })).json());
    expect(document).toContain(`"maxLength":${MAX_PAYLOAD_CHARS}`);
    for (const type of TYPES_WITH_FIELDS) expect(document).toContain(`"title":"${type} fields"`);
  });
});
