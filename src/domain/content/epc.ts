// epc content: the European Payments Council SEPA credit transfer code (EPC069-12 v002, "GiroCode"), UTF-8, read back
// at ECC M.
import { z } from 'zod';
import { invalidContent } from '../errors.js';
import { structuredContent } from './structured-content.js';
import type { ContentEncoder } from './types.js';

const MAX_BYTES = 331;
const IBAN_SHAPE = /^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/;
const BIC_SHAPE = /^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/;
const PURPOSE_SHAPE = /^[A-Z0-9]{4}$/;
const NO_LINE_BREAK = /^[^\r\n]*$/;

const line = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .regex(NO_LINE_BREAK, 'must be one line');

export const epcFieldsSchema = z.strictObject({
  name: line(70).describe('Beneficiary name, at most 70 characters.'),
  iban: z.string().max(42).describe('Beneficiary IBAN; spaces allowed, checksum verified (mod 97).'),
  bic: z.string().max(11).optional().describe('BIC of the beneficiary bank, 8 or 11 characters.'),
  amount: z
    .number()
    .min(0.01)
    .max(999999999.99)
    .optional()
    .describe('Amount in euro, 0.01 to 999999999.99, at most two decimals.'),
  purpose: z.string().max(4).optional().describe('Purpose code, 4 letters or digits (e.g. CHAR).'),
  reference: line(35)
    .optional()
    .describe('Structured creditor reference (ISO 11649), at most 35 characters; not with text.'),
  text: line(140).optional().describe('Unstructured remittance text, at most 140 characters; not with reference.'),
});
type EpcFields = z.infer<typeof epcFieldsSchema>;

/** ISO 13616: move the first four characters to the end, letters to 10..35, the number mod 97 must be 1. */
export function ibanChecksumValid(iban: string): boolean {
  let remainder = 0;
  for (const char of iban.slice(4) + iban.slice(0, 4)) {
    const value = Number.parseInt(char, 36);
    remainder = (value < 10 ? remainder * 10 + value : remainder * 100 + value) % 97;
  }
  return remainder === 1;
}

function checkedIban(raw: string, field: string): string {
  const iban = raw.replace(/ /g, '').toUpperCase();
  if (!IBAN_SHAPE.test(iban))
    throw invalidContent(field, 'must be an IBAN: country code, two check digits, 11 to 30 letters or digits');
  if (!ibanChecksumValid(iban)) throw invalidContent(field, 'has a wrong IBAN checksum (mod 97)');
  return iban;
}

/** The shortest exact spelling, as the standard's own example writes it ("EUR1"). */
function epcAmount(amount: number): string {
  const cents = Math.round(amount * 100);
  if (Math.abs(cents - amount * 100) > 1e-6) throw invalidContent('content.amount', 'must have at most two decimals');
  const euros = Math.floor(cents / 100);
  const rest = cents % 100;
  return `EUR${euros}${rest === 0 ? '' : `.${String(rest).padStart(2, '0').replace(/0$/, '')}`}`;
}

function buildEpc(fields: EpcFields): string {
  if (fields.reference !== undefined && fields.text !== undefined)
    throw invalidContent('content.text', 'must not be given with content.reference (one or the other)');
  const bic = fields.bic?.trim().toUpperCase();
  if (bic !== undefined && !BIC_SHAPE.test(bic))
    throw invalidContent('content.bic', 'must be a BIC of 8 or 11 letters and digits');
  const purpose = fields.purpose?.toUpperCase();
  if (purpose !== undefined && !PURPOSE_SHAPE.test(purpose))
    throw invalidContent('content.purpose', 'must be 4 letters or digits');
  const lines = [
    'BCD',
    '002',
    '1',
    'SCT',
    bic ?? '',
    fields.name,
    checkedIban(fields.iban, 'content.iban'),
    fields.amount === undefined ? '' : epcAmount(fields.amount),
    purpose ?? '',
    fields.reference ?? '',
    fields.text ?? '',
  ];
  // Trailing empty elements may be left out (EPC069-12 §5.3); segno does the same.
  while (lines[lines.length - 1] === '') lines.pop();
  return withinLimit(lines.join('\n'), 'content');
}

function withinLimit(payload: string, field: string): string {
  const bytes = Buffer.byteLength(payload, 'utf8');
  if (bytes > MAX_BYTES) throw invalidContent(field, `is ${bytes} bytes; an EPC code holds at most ${MAX_BYTES}`);
  return payload;
}

/** A ready code: the header lines, then the IBAN on line 7 with its checksum. */
function checkReady(payload: string): string | undefined {
  const lines = payload.split(/\r?\n/);
  if (
    lines[0] !== 'BCD' ||
    (lines[1] !== '001' && lines[1] !== '002') ||
    lines[3] !== 'SCT' ||
    lines.length < 7 ||
    lines.length > 12
  )
    return undefined;
  checkedIban(lines[6]!, 'content');
  return withinLimit(payload, 'content');
}

export const epcContent: ContentEncoder = {
  // EPC069-12 prescribes error correction M; generation uses it whatever level was asked.
  requiredErrorCorrection: 'M',
  ...structuredContent('epc', epcFieldsSchema, {
    ready: 'a ready EPC code (BCD / 001 or 002 / charset / SCT / BIC / name / IBAN …)',
    fromString: checkReady,
    fromFields: buildEpc,
  }),
};
