// vcard content: a vCard 3.0 contact card (CRLF, escaped, folded at 75 octets), built from fields or checked when
// ready.
import { z } from 'zod';
import { invalidContent } from '../errors.js';
import { boundedString, MAX_EMAIL_CHARS, MAX_PHONE_CHARS, MAX_TEXT_CHARS } from './limits.js';
import { looksLikePhoneNumber, PHONE_FORMAT } from './phone-number.js';
import { asGiven, structuredContent } from './structured-content.js';

export interface VcardFields {
  firstName: string;
  lastName?: string | undefined;
  organization?: string | undefined;
  title?: string | undefined;
  phone?: string | undefined;
  email?: string | undefined;
  url?: string | undefined;
  address?: string | undefined;
  note?: string | undefined;
}

const CRLF = '\r\n';
// RFC 2425 §5.8.1: lines longer than 75 octets are folded; the limit excludes the line break.
const MAX_LINE_OCTETS = 75;

// vCard values may not hold control characters other than tab and line breaks (which become \n).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const NO_CONTROLS = /^[^\x00-\x08\x0B\x0C\x0E-\x1F\x7F]*$/;
// A lone UTF-16 surrogate has no UTF-8 form, so octet counts and folding would be wrong.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function isHttpUrl(value: string): boolean {
  try {
    const { protocol, hostname } = new URL(value);
    return (protocol === 'http:' || protocol === 'https:') && hostname !== '';
  } catch {
    return false;
  }
}

function text() {
  return boundedString(MAX_TEXT_CHARS)
    .min(1, 'must not be empty (omit the field instead)')
    .regex(NO_CONTROLS, 'must not contain control characters other than tab and line breaks')
    .refine((value) => !LONE_SURROGATE.test(value), 'must be valid Unicode (lone surrogate found)');
}

export const vcardFieldsSchema = z.strictObject({
  firstName: text().regex(/\S/, 'must not be blank'),
  lastName: text().optional(),
  organization: text().optional(),
  title: text().optional(),
  // Checked in two linear steps: the one-pattern form (digit somewhere in a run of phone characters) was quadratic.
  phone: boundedString(MAX_PHONE_CHARS).refine(looksLikePhoneNumber, PHONE_FORMAT).optional(),
  email: z
    .email({ error: 'must be an email address such as name@example.com' })
    .max(MAX_EMAIL_CHARS, `must be at most ${MAX_EMAIL_CHARS} characters`)
    .optional(),
  // Checked by hand: zod's z.url() silently drops line breaks from the value it returns.
  url: boundedString(MAX_TEXT_CHARS)
    .regex(/^\S+$/, 'must not contain spaces or line breaks')
    .refine(isHttpUrl, 'must be an absolute http(s) URL')
    .optional(),
  address: text().optional(),
  note: text().optional(),
});

/** RFC 2426 §5 TEXT escaping; every kind of line break becomes the two characters `\n`. */
function escapeText(value: string): string {
  return value.replace(/[\\,;]/g, '\\$&').replace(/\r\n|\r|\n/g, '\\n');
}

function utf8Length(codePoint: number): number {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  return codePoint < 0x10000 ? 3 : 4;
}

/**
 * Folds one content line into physical lines of at most 75 octets. Breaks fall between code
 * points, never inside a UTF-8 sequence; each continuation starts with one space, which counts.
 */
export function foldLine(line: string): string {
  const lines: string[] = [];
  let current = '';
  let octets = 0;
  for (const char of line) {
    const size = utf8Length(char.codePointAt(0)!);
    if (octets + size > MAX_LINE_OCTETS) {
      lines.push(current);
      current = ' ';
      octets = 1;
    }
    current += char;
    octets += size;
  }
  lines.push(current);
  return lines.join(CRLF);
}

function contentLines(fields: VcardFields): string[] {
  const { firstName, lastName } = fields;
  const lines = [
    'BEGIN:VCARD',
    'VERSION:3.0',
    `N:${escapeText(lastName ?? '')};${escapeText(firstName)};;;`,
    `FN:${escapeText([firstName, lastName].filter(Boolean).join(' '))}`,
  ];
  const optional: [string, string | undefined][] = [
    ['ORG', fields.organization && escapeText(fields.organization)],
    ['TITLE', fields.title && escapeText(fields.title)],
    ['TEL', fields.phone && escapeText(fields.phone)],
    ['EMAIL', fields.email && escapeText(fields.email)],
    // A URI value, not TEXT: RFC 2426 escapes only TEXT, and a URL's commas are its own.
    ['URL', fields.url],
    // One free-form address goes in the street component of the structured ADR.
    ['ADR', fields.address && `;;${escapeText(fields.address)};;;;`],
    ['NOTE', fields.note && escapeText(fields.note)],
  ];
  for (const [name, value] of optional) if (value !== undefined) lines.push(`${name}:${value}`);
  lines.push('END:VCARD');
  return lines;
}

function buildVcard(fields: VcardFields): string {
  return contentLines(fields)
    .map((line) => foldLine(line) + CRLF)
    .join('');
}

/** Splits physical lines on CRLF or LF and joins folded continuations back onto their line. */
function unfold(payload: string): string[] {
  const physical = payload.split(/\r?\n/);
  // One line break after END:VCARD is the normal ending, not an empty line.
  if (physical.at(-1) === '') physical.pop();
  const lines: string[] = [];
  for (const line of physical) {
    if (line.includes('\r')) throw invalidContent('content', 'line breaks must be CRLF or LF, not a lone CR');
    if (line.startsWith(' ') || line.startsWith('\t')) {
      if (lines.length === 0) throw invalidContent('content', 'must not start with a continuation line');
      lines[lines.length - 1] += line.slice(1);
    } else {
      lines.push(line);
    }
  }
  return lines;
}

interface ContentLine {
  name: string;
  value: string;
}

/** `[group.]NAME[;params]:value`; the colon inside a quoted parameter value does not count. */
function readContentLine(line: string): ContentLine {
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '"') quoted = !quoted;
    else if (line[i] === ':' && !quoted) {
      const match = /^(?:[A-Za-z0-9-]+\.)?([A-Za-z0-9-]+)(;.*)?$/s.exec(line.slice(0, i));
      if (match?.[1]) return { name: match[1].toUpperCase(), value: line.slice(i + 1) };
      break;
    }
  }
  throw invalidContent('content', `line "${line.slice(0, 30)}" must look like NAME:value`);
}

function unescapeText(value: string): string {
  return value.replace(/\\(.)/gs, (_, char: string) => (char === 'n' || char === 'N' ? '\n' : char));
}

/** Splits a structured value (N, ADR) on its unescaped `;` separators. */
function splitComponents(value: string): string[] {
  const components: string[] = [];
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    if (value[i] === '\\') i++;
    else if (value[i] === ';') {
      components.push(value.slice(start, i));
      start = i + 1;
    }
  }
  components.push(value.slice(start));
  return components.map(unescapeText);
}

function readCard(lines: string[]): ContentLine[] {
  const first = lines[0];
  const last = lines.at(-1);
  if (first === undefined || !/^BEGIN:VCARD$/i.test(first))
    throw invalidContent('content', 'must start with BEGIN:VCARD');
  if (lines.length < 2 || !/^END:VCARD$/i.test(last ?? '')) throw invalidContent('content', 'must end with END:VCARD');
  const body = lines.slice(1, -1).map((line) => {
    if (line === '') throw invalidContent('content', 'must not contain empty lines');
    return readContentLine(line);
  });
  if (body.some((line) => line.name === 'BEGIN' || line.name === 'END')) {
    throw invalidContent('content', 'must hold exactly one card (no nested BEGIN/END)');
  }
  const version = body.find((line) => line.name === 'VERSION');
  if (!version) throw invalidContent('content', 'must have a VERSION line');
  if (!['2.1', '3.0', '4.0'].includes(version.value))
    throw invalidContent('content', 'VERSION must be 2.1, 3.0 or 4.0');
  if (!body.some((line) => line.name === 'N' || line.name === 'FN'))
    throw invalidContent('content', 'must have an N or FN line');
  return body;
}

/**
 * Reads a vCard back into fields (the first of each property wins). Checks it is one well-formed
 * card: BEGIN/END, a known VERSION, a name, `NAME:value` lines separated by CRLF or LF.
 * Throws `invalid_content` on `content` otherwise.
 */
export function parseVcard(payload: string): VcardFields {
  const body = readCard(unfold(payload));
  const value = (name: string) => body.find((line) => line.name === name)?.value;
  const [lastName = '', givenName = ''] = splitComponents(value('N') ?? '');
  const fields: VcardFields = { firstName: givenName || unescapeText(value('FN') ?? '') };
  if (lastName) fields.lastName = lastName;
  const texts = { organization: 'ORG', title: 'TITLE', phone: 'TEL', email: 'EMAIL', note: 'NOTE' } as const;
  for (const [field, name] of Object.entries(texts)) {
    const raw = value(name);
    if (raw !== undefined) fields[field as keyof typeof texts] = unescapeText(raw);
  }
  const url = value('URL');
  if (url !== undefined) fields.url = url;
  const street = splitComponents(value('ADR') ?? '')[2];
  if (street) fields.address = street;
  return fields;
}

export const vcardContent = structuredContent('vcard', vcardFieldsSchema, {
  ready: 'a ready BEGIN:VCARD string',
  // LF line breaks included: ZXing and the iOS and Android cameras read both.
  fromString: asGiven(parseVcard),
  fromFields: buildVcard,
});
