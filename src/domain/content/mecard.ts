// mecard content: the compact MECARD:N:…;TEL:…;EMAIL:…;URL:…;ADR:…;NOTE:…;; contact many phone scanners prefer.
import { z } from 'zod';
import { structuredContent } from './structured-content.js';

const value = (max: number) => z.string().trim().min(1, 'must not be empty').max(max);

export const mecardFieldsSchema = z.strictObject({
  name: value(100).describe(
    'Name. A comma separates last and first name ("Doe,John"), as MeCard reads it; any later comma is kept as text.',
  ),
  phone: value(40).optional().describe('Phone number.'),
  email: value(254).optional().describe('Email address.'),
  url: value(2000).optional().describe('Web address.'),
  address: value(300).optional().describe('Postal address.'),
  note: value(500).optional().describe('Free text.'),
});
type MecardFields = z.infer<typeof mecardFieldsSchema>;

/** Backslash, semicolon, comma and colon are the format's delimiters; each is escaped with a backslash. */
const escapeValue = (text: string) => text.replace(/[\\;,:]/g, (c) => `\\${c}`);

const FIELD_TAGS: Array<[keyof MecardFields, string]> = [
  ['name', 'N'],
  ['phone', 'TEL'],
  ['email', 'EMAIL'],
  ['url', 'URL'],
  ['address', 'ADR'],
  ['note', 'NOTE'],
];

/**
 * MeCard's N holds "last,first" (the DoCoMo spec; segno and ZXing's parser read it so): the first comma is
 * that separator and stays bare, the others are text and are escaped.
 */
function nameValue(name: string): string {
  const comma = name.indexOf(',');
  return comma === -1
    ? escapeValue(name)
    : `${escapeValue(name.slice(0, comma))},${escapeValue(name.slice(comma + 1))}`;
}

function buildMecard(fields: MecardFields): string {
  const parts = FIELD_TAGS.flatMap(([name, tag]) =>
    fields[name] === undefined
      ? []
      : [`${tag}:${name === 'name' ? nameValue(fields[name]) : escapeValue(fields[name])}`],
  );
  return `MECARD:${parts.join(';')};;`;
}

function isReady(payload: string): boolean {
  return payload.length <= 4000 && payload.startsWith('MECARD:') && payload.includes('N:');
}

export const mecardContent = structuredContent('mecard', mecardFieldsSchema, {
  ready: 'a MECARD:N:…;; text',
  fromString: (content) => (isReady(content) ? content : undefined),
  fromFields: buildMecard,
});
