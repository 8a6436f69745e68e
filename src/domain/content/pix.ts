// pix content: an EMV BR Code for Brazil's Pix with its CRC16, built (static) from fields or checked when ready.
import { z } from 'zod';
import { invalidContent } from '../errors.js';
import { boundedString } from './limits.js';
import { asGiven, structuredContent } from './structured-content.js';

export interface PixFields {
  key: string;
  name: string;
  city: string;
  amount?: number | undefined;
  txid?: string | undefined;
  description?: string | undefined;
}

/** What a ready BR Code holds: a static code names a key, a dynamic one a payload URL. */
export interface ParsedPix extends Omit<PixFields, 'key'> {
  key?: string | undefined;
  url?: string | undefined;
}

const PIX_GUI = 'br.gov.bcb.pix';
const NAME_MAX = 25;
const CITY_MAX = 15;
const TXID_MAX = 25;
// A TLV length has two digits, so no value, nested template included, can exceed 99 characters.
const TLV_VALUE_MAX = 99;
const AMOUNT_MAX_CHARS = 13;
// The longest key of any kind: the DICT caps email keys at 77 characters.
const KEY_MAX = 77;
/**
 * A text field held to its BR Code limit, counted in composed characters (NFC): an accented letter is one character
 * whether it was sent composed or as a letter and a combining mark, as it is once accents are removed.
 * The documented maxLength is the limit itself.
 */
function plainField(max: number) {
  return z
    .string()
    .overwrite((value) => value.normalize('NFC'))
    .max(max, `must be at most ${max} characters once accents are removed`)
    .min(1, 'must not be empty');
}
const TXID_RULE = `must be 1 to ${TXID_MAX} letters or digits (A-Z, a-z, 0-9)`;

export const pixFieldsSchema = z.strictObject({
  key: boundedString(KEY_MAX).min(1, 'must not be empty'),
  name: plainField(NAME_MAX).describe(`Payee name, at most ${NAME_MAX} characters (accents are removed).`),
  city: plainField(CITY_MAX).describe(`Payee city, at most ${CITY_MAX} characters (accents are removed).`),
  amount: z.number().positive('must be greater than 0').optional(),
  txid: boundedString(TXID_MAX, TXID_RULE)
    .regex(/^[A-Za-z0-9]{1,25}$/, TXID_RULE)
    .optional(),
  description: plainField(TLV_VALUE_MAX)
    .describe(`At most ${TLV_VALUE_MAX} characters less the room the key takes in field 26 (accents are removed).`)
    .optional(),
});

// ---- CRC16-CCITT-FALSE ----------------------------------------------------------------------

/** CRC16-CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor) over UTF-8 bytes. */
export function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of new TextEncoder().encode(text)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

// ---- Pix keys -------------------------------------------------------------------------------

/** The Brazilian mod-11 check digit of `digits` under the given weights (CPF and CNPJ alike). */
function mod11(digits: string, weights: number[]): number {
  const sum = [...digits].reduce((total, digit, i) => total + Number(digit) * weights[i]!, 0);
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

function countdown(from: number, length: number): number[] {
  return Array.from({ length }, (_, i) => from - i);
}

function isCpf(digits: string): boolean {
  // Eleven equal digits pass the arithmetic but are not issued.
  if (/^(\d)\1{10}$/.test(digits)) return false;
  const first = mod11(digits.slice(0, 9), countdown(10, 9));
  const second = mod11(digits.slice(0, 10), countdown(11, 10));
  return digits.endsWith(`${first}${second}`);
}

function isCnpj(digits: string): boolean {
  if (/^(\d)\1{13}$/.test(digits)) return false;
  // Weights 5..2 then 9..2 for the first digit; 6..2 then 9..2 for the second.
  const first = mod11(digits.slice(0, 12), [...countdown(5, 4), ...countdown(9, 8)]);
  const second = mod11(digits.slice(0, 13), [...countdown(6, 5), ...countdown(9, 8)]);
  return digits.endsWith(`${first}${second}`);
}

const KEY_KINDS = 'a CPF (11 digits), CNPJ (14 digits), phone (+55 and 10-11 digits), email or random key (UUID)';

/** Returns the rule the key breaks, or undefined when it is a well-formed key of some kind. */
function pixKeyProblem(key: string): string | undefined {
  if (/^\d{11}$/.test(key))
    return isCpf(key) ? undefined : 'is 11 digits but not a valid CPF (check digits do not match)';
  if (/^\d{14}$/.test(key))
    return isCnpj(key) ? undefined : 'is 14 digits but not a valid CNPJ (check digits do not match)';
  if (key.startsWith('+'))
    return /^\+55\d{10,11}$/.test(key) ? undefined : 'a phone key must be +55 followed by 10 or 11 digits';
  if (key.includes('@')) {
    // The DICT caps email keys at 77 characters.
    const ok = key.length <= KEY_MAX && /^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/.test(key);
    return ok ? undefined : 'an email key must be an address of at most 77 ASCII characters';
  }
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(key)) return undefined;
  return `must be ${KEY_KINDS}`;
}

// ---- Text fields ----------------------------------------------------------------------------

/** Removes accents (NFD, then drop combining marks), as BR Code readers expect plain ASCII. */
export function removeAccents(value: string): string {
  return value.normalize('NFD').replace(/\p{M}/gu, '');
}

/**
 * Accents removed, then checked. Too long is rejected, not truncated: cutting a payee's name or
 * city changes what the payer sees on the confirmation screen, and the caller should choose how.
 */
function plainText(field: string, value: string, max: number): string {
  const plain = removeAccents(value);
  if (!/^[\x20-\x7E]*$/.test(plain)) {
    throw invalidContent(field, 'must use only ASCII letters, digits, spaces and punctuation once accents are removed');
  }
  if (plain.trim() === '') throw invalidContent(field, 'must not be blank');
  if (plain.length > max) {
    throw invalidContent(field, `must be at most ${max} characters once accents are removed (has ${plain.length})`);
  }
  return plain;
}

function formatAmount(amount: number): string {
  const text = amount.toFixed(2);
  if (Number(text) !== amount) throw invalidContent('content.amount', 'must have at most 2 decimal places');
  if (text.length > AMOUNT_MAX_CHARS) {
    throw invalidContent('content.amount', `must be below 10000000000 (field 54 holds ${AMOUNT_MAX_CHARS} characters)`);
  }
  return text;
}

// ---- TLV ------------------------------------------------------------------------------------

function tlv(id: string, value: string): string {
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
}

function buildPix(fields: PixFields): string {
  const keyProblem = pixKeyProblem(fields.key);
  if (keyProblem) throw invalidContent('content.key', keyProblem);
  const name = plainText('content.name', fields.name, NAME_MAX);
  const city = plainText('content.city', fields.city, CITY_MAX);
  let account = tlv('00', PIX_GUI) + tlv('01', fields.key);
  if (fields.description !== undefined) {
    const description = plainText('content.description', fields.description, TLV_VALUE_MAX);
    const room = TLV_VALUE_MAX - account.length - 4;
    if (description.length > room) {
      const detail = `must be at most ${Math.max(room, 0)} characters with this key (field 26 holds ${TLV_VALUE_MAX})`;
      throw invalidContent('content.description', detail);
    }
    account += tlv('02', description);
  }
  const payload = [
    tlv('00', '01'),
    tlv('26', account),
    tlv('52', '0000'),
    tlv('53', '986'),
    fields.amount === undefined ? '' : tlv('54', formatAmount(fields.amount)),
    tlv('58', 'BR'),
    tlv('59', name),
    tlv('60', city),
    // `***` is the BR Code's "no transaction id".
    tlv('62', tlv('05', fields.txid ?? '***')),
    '6304',
  ].join('');
  return payload + crc16(payload);
}

/** A ready code is one string, so every problem in it is reported against `content`. */
function malformed(detail: string) {
  return invalidContent('content', detail);
}

/** Reads `IDLLvalue` fields; the order is kept and a repeated id is refused. */
function readTlv(text: string, where: string): Map<string, string> {
  const fields = new Map<string, string>();
  let at = 0;
  while (at < text.length) {
    const header = /^(\d\d)(\d\d)/.exec(text.slice(at, at + 4));
    if (!header) throw malformed(`${where}: expected a 2-digit id and 2-digit length at position ${at}`);
    const [, id = '', length = ''] = header;
    const value = text.slice(at + 4, at + 4 + Number(length));
    if (value.length !== Number(length)) throw malformed(`${where}: field ${id} is shorter than its length ${length}`);
    if (fields.has(id)) throw malformed(`${where}: field ${id} appears twice`);
    fields.set(id, value);
    at += 4 + value.length;
  }
  return fields;
}

function required(fields: Map<string, string>, id: string, what: string): string {
  const value = fields.get(id);
  if (value === undefined || value === '') throw malformed(`must have field ${id} (${what})`);
  return value;
}

/** 00 = 01 first, 63 last, and the CRC over everything up to and including `6304`. */
function checkFrame(payload: string, fields: Map<string, string>): void {
  const ids = [...fields.keys()];
  if (ids[0] !== '00' || fields.get('00') !== '01') throw malformed('must start with field 00 = 01 (payload format)');
  const crc = fields.get('63');
  if (ids.at(-1) !== '63' || crc?.length !== 4) throw malformed('must end with field 63, a 4-digit CRC');
  const expected = crc16(payload.slice(0, -4));
  if (crc.toUpperCase() !== expected) throw malformed(`CRC does not match (expected ${expected})`);
}

/** The fields every static or dynamic Pix code carries with fixed values. */
function checkFixedFields(fields: Map<string, string>): void {
  const initiation = fields.get('01');
  if (initiation !== undefined && initiation !== '11' && initiation !== '12') {
    throw malformed('field 01 (point of initiation) must be 11 or 12');
  }
  if (!/^\d{4}$/.test(required(fields, '52', 'merchant category code'))) throw malformed('field 52 must be 4 digits');
  if (fields.get('53') !== '986') throw malformed('field 53 (currency) must be 986, the Brazilian real');
  if (fields.get('58') !== 'BR') throw malformed('field 58 (country) must be BR');
}

function readAccount(template: string): Pick<ParsedPix, 'key' | 'url' | 'description'> {
  const account = readTlv(template, 'field 26');
  if (account.get('00')?.toLowerCase() !== PIX_GUI) throw malformed(`field 26 must start with 00 = ${PIX_GUI}`);
  const key = account.get('01');
  const url = account.get('25');
  if (key === undefined && url === undefined) throw malformed('field 26 must hold a key (01) or a payload URL (25)');
  const problem = key === undefined ? undefined : pixKeyProblem(key);
  if (problem) throw malformed(`key ${problem}`);
  return { key, url, description: account.get('02') };
}

function readLimited(fields: Map<string, string>, id: string, what: string, max: number): string {
  const value = required(fields, id, what);
  if (value.length > max) throw malformed(`field ${id} (${what}) must be at most ${max} characters`);
  return value;
}

function readAmount(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+(\.\d{1,2})?$/.test(text) || Number(text) <= 0) {
    throw malformed('field 54 (amount) must be a positive number with up to 2 decimals');
  }
  return Number(text);
}

function readTxid(template: string): string | undefined {
  const txid = required(readTlv(template, 'field 62'), '05', 'transaction id, *** for none');
  if (txid === '***') return undefined;
  if (!/^[A-Za-z0-9]{1,25}$/.test(txid))
    throw malformed(`field 62-05 (txid) must be *** or 1 to ${TXID_MAX} letters or digits`);
  return txid;
}

/**
 * Reads a BR Code back into fields, checking it field by field (nested 26 and 62 included) and
 * its CRC. Throws `invalid_content` on `content` when any part is wrong.
 */
export function parsePix(payload: string): ParsedPix {
  const fields = readTlv(payload, 'BR Code');
  checkFrame(payload, fields);
  checkFixedFields(fields);
  const parsed: ParsedPix = {
    ...readAccount(required(fields, '26', 'Pix merchant account')),
    name: readLimited(fields, '59', 'merchant name', NAME_MAX),
    city: readLimited(fields, '60', 'merchant city', CITY_MAX),
    amount: readAmount(fields.get('54')),
    txid: readTxid(required(fields, '62', 'additional data with the txid')),
  };
  // Absent members are left out so a parsed code compares equal to the fields that built it.
  return Object.fromEntries(Object.entries(parsed).filter(([, value]) => value !== undefined)) as ParsedPix;
}

export const pixContent = structuredContent('pix', pixFieldsSchema, {
  ready: 'a ready BR Code string',
  // The CRC covers every character of a ready code.
  fromString: asGiven(parsePix),
  fromFields: buildPix,
});
