// Every string field of every content type has a documented maximum, and one character more is a 400 invalid_content
// naming the field.
import { beforeAll, describe, expect, it } from 'vitest';
import { contentEncoderFor, QR_TYPES } from '../../src/domain/content/index.js';
import { MAX_PAYLOAD_CHARS } from '../../src/domain/content/limits.js';
import { generate, useTestApp } from '../helpers/app.js';
import { stringFields, TYPES_WITH_FIELDS, VALID_FIELDS } from '../helpers/content-fields.js';

const STRING_FIELDS = TYPES_WITH_FIELDS.flatMap(stringFields);

const t = useTestApp();
let key: string;
beforeAll(async () => {
  key = (await t.newCaller('business')).key;
});

describe('maximum lengths of content', () => {
  it('every type with named fields has a valid sample here (a new type must add one)', () => {
    expect(TYPES_WITH_FIELDS.filter((type) => VALID_FIELDS[type] === undefined)).toEqual([]);
    expect(STRING_FIELDS.length).toBeGreaterThan(15);
  });

  it('every string field of every type declares a maximum in its schema (and so in the OpenAPI document)', () => {
    expect(
      STRING_FIELDS.filter((field) => field.max === undefined).map((field) => `${field.type}.${field.name}`),
    ).toEqual([]);
  });

  it.each(STRING_FIELDS)(
    '$type.$name: one character past $max is a 400 invalid_content naming content.$name',
    async ({ type, name, max }) => {
      const content = { ...VALID_FIELDS[type], [name]: '1'.repeat(max! + 1) };
      const res = await generate(t.app, key, { content, type, outputFormat: 'png' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_content', errors: [{ field: `content.${name}` }] });
    },
  );

  it.each(QR_TYPES)(
    `%s: a ready string past ${MAX_PAYLOAD_CHARS} characters is a 400 invalid_content naming content`,
    async (type) => {
      const res = await generate(t.app, key, { content: '1'.repeat(MAX_PAYLOAD_CHARS + 1), type, outputFormat: 'png' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_content', errors: [{ field: 'content' }] });
    },
  );

  it.each(QR_TYPES)('%s: the encoder itself bounds a ready string too (whatever route calls it)', (type) => {
    expect(() => contentEncoderFor(type).encode('1'.repeat(MAX_PAYLOAD_CHARS + 1))).toThrow(
      `at most ${MAX_PAYLOAD_CHARS} characters`,
    );
  });

  it('the OpenAPI document shows the maximum of the ready string and of each named field', async () => {
    const document = JSON.stringify((await t.app.inject({ method: 'GET', url: '/openapi.json' })).json());
    expect(document).toContain(`"maxLength":${MAX_PAYLOAD_CHARS}`);
    for (const type of TYPES_WITH_FIELDS) expect(document).toContain(`"title":"${type} fields"`);
  });
});
