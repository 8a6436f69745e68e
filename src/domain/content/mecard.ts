// mecard content: the compact MECARD:N:…;TEL:…;EMAIL:…;URL:…;ADR:…;NOTE:…;; contact many phone scanners prefer.
import { z } from 'zod';
import { invalidContent } from '../errors.js';
import { structuredContent } from './structured-content.js';

const value = (max: number) => z.string().trim().min(1, 'must not be empty').max(max);

export const mecardFieldsSchema = z.strictObject({
  name: value(100).describe('Name, "Last,First" or as written.'),
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

function buildMecard(fields: MecardFields): string {
  const parts = FIELD_TAGS.flatMap(([name, tag]) => (fields[name] === undefined ? [] : [`${tag}:${escapeValue(fields[name])}`]));
  return `MECARD:${parts.join(';')};;`;
}

function checkReady(payload: string): string {
  if (payload.length > 4000 || !payload.startsWith('MECARD:') || !payload.includes('N:')) {
    throw invalidContent('content', 'must be a MECARD:N:…;; text or an object {name, phone?, email?, url?, address?, note?}');
  }
  return payload;
}

export const mecardContent = structuredContent({
  type: 'mecard',
  fields: mecardFieldsSchema,
  fromString: checkReady,
  fromFields: buildMecard,
  expected: 'a MECARD: text or an object {name, phone?, email?, url?, address?, note?}',
});
