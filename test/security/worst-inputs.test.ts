// Request budget: the worst inputs we can build for every content type and field (long runs, nested escapes, many
// separators) are refused with a 4xx.
import { beforeAll, describe, expect, it } from 'vitest';
import { QR_TYPES } from '../../src/domain/content/index.js';
import { MAX_PAYLOAD_CHARS } from '../../src/domain/content/limits.js';
import { generate, useTestApp } from '../helpers/app.js';
import { stringFields, TYPES_WITH_FIELDS, VALID_FIELDS } from '../helpers/content-fields.js';

/**
 * The cost of these is measured by bench/scenarios/hostile-neighbour.ts, not here (no timing in
 * tests); here each must come back refused, never a 5xx and never an image. Every body also asks
 * for size 64 with margin 16 at level H, which only a payload of at most 24 bytes fits: so even a
 * well-formed worst input is refused after all of its content checks have run.
 */
const UNDRAWABLE = { outputFormat: 'png', size: 64, margin: 16, errorCorrection: 'H' } as const;

/** Runs that make backtracking, escaping and splitting code work hardest, `n` characters long. */
function worstRuns(n: number): Record<string, string> {
  const cycle = (unit: string) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
  return {
    'digits then a bad end': `${'0'.repeat(n - 1)}!`,
    'phone punctuation then a bad end': `${cycle('1 (2)-3./')}`.slice(0, n - 1) + 'x',
    backslashes: cycle('\\'),
    'nested escapes': cycle('\\\\;'),
    semicolons: cycle(';'),
    colons: cycle(':'),
    commas: cycle(','),
    ampersands: cycle('&'),
    'percent signs': cycle('%'),
    'broken percent escapes': cycle('%E'),
    'dots and at signs': cycle('a.@'),
    'dotted labels then a digit end': `${cycle('a.')}`.slice(0, n - 1) + '1',
    'line breaks and folds': cycle('\r\n '),
    quotes: cycle('"'),
    'lone surrogates': cycle('\uD800'),
    'control characters': cycle('\u0001'),
    'TLV headers': cycle('0099'),
  };
}

const READY_PREFIXES: Record<string, string[]> = {
  url: ['', 'https://'],
  text: [''],
  wifi: ['WIFI:', 'WIFI:S:'],
  vcard: ['BEGIN:VCARD\r\n', 'BEGIN:VCARD\r\nVERSION:3.0\r\nN:'],
  pix: ['', '000201'],
  whatsapp: ['', 'https://wa.me/', 'https://wa.me/5511987654321?text='],
  email: ['', 'mailto:', 'mailto:a@example.com?'],
  sms: ['', 'SMSTO:', 'SMSTO:+14155550100:'],
};

const t = useTestApp();
let key: string;
beforeAll(async () => {
  key = (await t.newCaller('business')).key;
});

async function expectRefused(body: unknown, what: string) {
  const res = await generate(t.app, key, body);
  expect(res.statusCode, `${what}: ${res.body.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
  expect(res.statusCode, what).toBeLessThan(500);
  expect(res.headers['content-type'], what).toMatch(/^application\/problem\+json/);
}

describe('worst-case ready strings, at the longest length allowed and one past it', () => {
  it.each(QR_TYPES)('%s', async (type) => {
    for (const prefix of READY_PREFIXES[type] ?? ['']) {
      for (const length of [MAX_PAYLOAD_CHARS, MAX_PAYLOAD_CHARS + 1]) {
        for (const [run, text] of Object.entries(worstRuns(length - prefix.length))) {
          await expectRefused(
            { ...UNDRAWABLE, type, content: prefix + text },
            `${type} ${JSON.stringify(prefix)} + ${run} (${length})`,
          );
        }
      }
    }
  });
});

describe('worst-case named fields, each at its maximum and one past it', () => {
  it.each(TYPES_WITH_FIELDS)('%s', async (type) => {
    for (const { name, max = MAX_PAYLOAD_CHARS } of stringFields(type)) {
      for (const length of [max, max + 1]) {
        for (const [run, text] of Object.entries(worstRuns(length))) {
          const content = { ...VALID_FIELDS[type], [name]: text };
          await expectRefused({ ...UNDRAWABLE, type, content }, `${type}.${name} ${run} (${length})`);
        }
      }
    }
  });

  it('every field at its maximum at once, for every type', async () => {
    for (const type of TYPES_WITH_FIELDS) {
      for (const [run] of Object.entries(worstRuns(8))) {
        const content = {
          ...VALID_FIELDS[type],
          ...Object.fromEntries(
            stringFields(type).map(({ name, max = MAX_PAYLOAD_CHARS }) => [name, worstRuns(max)[run]]),
          ),
        };
        await expectRefused({ ...UNDRAWABLE, type, content }, `${type} all fields ${run}`);
      }
    }
  });
});
