// upi content: India's UPI payment URI, upi://pay?pa=…&pn=…&am=…&cu=INR&tn=…, values percent-encoded.
import { z } from 'zod';
import { invalidContent } from '../errors.js';
import { structuredContent } from './structured-content.js';
import { encodeUriValue } from './uri-component.js';

const VPA = /^[A-Za-z0-9._-]{2,256}@[A-Za-z0-9]{2,64}$/;
const READY_PREFIX = 'upi://pay?';

export const upiFieldsSchema = z.strictObject({
  vpa: z
    .string()
    .max(321)
    .regex(VPA, 'must be a UPI address such as name@bank')
    .describe('Payee virtual payment address, e.g. shop@okaxis.'),
  name: z.string().trim().min(1, 'must not be empty').max(99).describe('Payee name.'),
  amount: z
    .number()
    .min(0.01)
    .max(99999999.99)
    .optional()
    .describe('Amount in rupees, at most two decimals; written with two.'),
  note: z.string().min(1, 'must not be empty').max(80).optional().describe('Transaction note.'),
});
type UpiFields = z.infer<typeof upiFieldsSchema>;

/** Percent-encoded, with @ left as is: UPI apps read the VPA's @ literally. */
const encode = (value: string, field: string) => encodeUriValue(value, field).replace(/%40/g, '@');

function buildUpi(fields: UpiFields): string {
  const params = [`pa=${encode(fields.vpa, 'content.vpa')}`, `pn=${encode(fields.name, 'content.name')}`];
  if (fields.amount !== undefined) {
    if (Math.abs(Math.round(fields.amount * 100) - fields.amount * 100) > 1e-6)
      throw invalidContent('content.amount', 'must have at most two decimals');
    params.push(`am=${fields.amount.toFixed(2)}`);
  }
  params.push('cu=INR');
  if (fields.note !== undefined) params.push(`tn=${encode(fields.note, 'content.note')}`);
  return `${READY_PREFIX}${params.join('&')}`;
}

function checkReady(payload: string): string | undefined {
  if (!payload.startsWith(READY_PREFIX) || payload.length > 1024) return undefined;
  const pa = new URLSearchParams(payload.slice(READY_PREFIX.length)).get('pa');
  if (pa === null || !VPA.test(pa)) throw invalidContent('content', 'must carry pa=<UPI address>');
  return payload;
}

export const upiContent = structuredContent('upi', upiFieldsSchema, {
  ready: 'a upi://pay? URI',
  fromString: checkReady,
  fromFields: buildUpi,
});
