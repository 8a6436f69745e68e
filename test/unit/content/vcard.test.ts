import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeContent } from '../../../src/domain/content/index.js';
import { parseVcard, type VcardFields } from '../../../src/domain/content/vcard.js';
import { DECODED_RUNS, scanBack } from '../../helpers/decode.js';
import { blames } from './blames.js';

const encode = (content: unknown) => encodeContent('vcard', content);
const octets = (text: string) => new TextEncoder().encode(text).length;

describe('vcard content from fields', () => {
  it('writes a vCard 3.0 with every field, each line ending in CRLF', () => {
    const card = encode({
      firstName: 'Ana',
      lastName: 'Silva',
      organization: 'Acme',
      title: 'CTO',
      phone: '+55 11 98765-4321',
      email: 'ana@example.com',
      url: 'https://example.com/ana',
      address: 'Rua A 1',
      note: 'Hi',
    });
    expect(card).toBe(
      [
        'BEGIN:VCARD',
        'VERSION:3.0',
        'N:Silva;Ana;;;',
        'FN:Ana Silva',
        'ORG:Acme',
        'TITLE:CTO',
        'TEL:+55 11 98765-4321',
        'EMAIL:ana@example.com',
        'URL:https://example.com/ana',
        'ADR:;;Rua A 1;;;;',
        'NOTE:Hi',
        'END:VCARD',
        '',
      ].join('\r\n'),
    );
  });

  it('writes N with an empty family name and FN with the first name alone when there is no last name', () => {
    const card = encode({ firstName: 'Ana' });
    expect(card).toContain('\r\nN:;Ana;;;\r\n');
    expect(card).toContain('\r\nFN:Ana\r\n');
  });

  it('escapes backslash, comma and semicolon, and turns every kind of line break into \\n', () => {
    const card = encode({ firstName: 'Ana', note: 'a\\b,c;d\ne\r\nf\rg' });
    expect(card).toContain('\r\nNOTE:a\\\\b\\,c\\;d\\ne\\nf\\ng\r\n');
  });

  it('escapes a semicolon inside a name component so N keeps its five parts', () => {
    expect(encode({ firstName: 'A;B', lastName: 'C,D' })).toContain('\r\nN:C\\,D;A\\;B;;;\r\n');
  });

  it('folds long lines at 75 octets, continuation lines starting with one space', () => {
    const lines = encode({ firstName: 'Ana', note: 'x'.repeat(200) }).split('\r\n');
    const note = lines.findIndex((line) => line.startsWith('NOTE:'));
    expect(lines[note]).toHaveLength(75);
    expect(lines[note + 1]).toBe(` ${'x'.repeat(74)}`);
    expect(lines[note + 2]).toBe(` ${'x'.repeat(200 - 70 - 74)}`);
  });

  it('never splits a multi-byte character across a fold', () => {
    // NOTE: takes 5 octets, so 'é' (2 octets) would straddle octets 75 and 76 of the first line.
    const lines = encode({ firstName: 'Ana', note: 'é'.repeat(60) + '😀'.repeat(30) }).split('\r\n');
    const decoder = new TextDecoder('utf-8', { fatal: true });
    for (const line of lines) {
      expect(octets(line)).toBeLessThanOrEqual(75);
      expect(decoder.decode(new TextEncoder().encode(line))).toBe(line);
      expect(line).not.toMatch(/[\uD800-\uDBFF]$/);
    }
    expect(lines.find((line) => line.startsWith('NOTE:'))).toBe(`NOTE:${'é'.repeat(35)}`);
  });

  it.each([
    [{}, 'content.firstName', /required/],
    [{ firstName: '' }, 'content.firstName', /empty/],
    [{ firstName: '   ' }, 'content.firstName', /blank/],
    [{ firstName: 'Ana', lastName: '' }, 'content.lastName', /empty/],
    [{ firstName: 'Ana', note: 'bell\u0007' }, 'content.note', /control characters/],
    [{ firstName: 'Ana', title: 'bad \uD800 half' }, 'content.title', /lone surrogate/],
    [{ firstName: 'Ana', phone: 'call me' }, 'content.phone', /phone number/],
    [{ firstName: 'Ana', email: 'ana@' }, 'content.email', /email address/],
    [{ firstName: 'Ana', url: 'ftp://example.com' }, 'content.url', /http\(s\) URL/],
    [{ firstName: 'Ana', url: 'https://example.com/a\nb' }, 'content.url', /spaces or line breaks/],
    [{ firstName: 'Ana', organization: 7 }, 'content.organization', /must be a string/],
    [{ firstName: 'Ana', birthday: '1990-01-01' }, 'content.birthday', /not a field/],
  ])('rejects %j, naming %s', (content, field, detail) => {
    expect(() => encode(content)).toThrow(blames(field, detail));
  });
});

describe('vcard content from a ready string', () => {
  const crlfCard = 'BEGIN:VCARD\r\nVERSION:3.0\r\nN:Silva;Ana;;;\r\nFN:Ana Silva\r\nEND:VCARD\r\n';

  it('returns a CRLF card unchanged', () => {
    expect(encode(crlfCard)).toBe(crlfCard);
  });

  it('returns an LF card unchanged, without rewriting its line breaks', () => {
    const lfCard = crlfCard.replaceAll('\r\n', '\n');
    expect(encode(lfCard)).toBe(lfCard);
  });

  it('accepts folded lines, parameters, groups and a vCard 4.0 with only FN', () => {
    const card = 'BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Ana\r\n Silva\r\nitem1.TEL;TYPE="cell,voice":+5511\r\nEND:VCARD';
    expect(encode(card)).toBe(card);
    expect(parseVcard(card)).toEqual({ firstName: 'AnaSilva', phone: '+5511' });
  });

  it.each([
    ['VERSION:3.0\r\nFN:Ana\r\nEND:VCARD', /start with BEGIN:VCARD/],
    ['BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ana', /end with END:VCARD/],
    ['BEGIN:VCARD\r\nFN:Ana\r\nEND:VCARD', /VERSION line/],
    ['BEGIN:VCARD\r\nVERSION:5.0\r\nFN:Ana\r\nEND:VCARD', /VERSION must be/],
    ['BEGIN:VCARD\r\nVERSION:3.0\r\nTEL:1\r\nEND:VCARD', /N or FN/],
    ['BEGIN:VCARD\rVERSION:3.0\rFN:Ana\rEND:VCARD', /lone CR/],
    ['BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ana\r\nBEGIN:VCARD\r\nEND:VCARD', /exactly one card/],
    ['BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ana\r\n\r\nEND:VCARD', /empty lines/],
    ['BEGIN:VCARD\r\nVERSION:3.0\r\nFN Ana\r\nEND:VCARD', /NAME:value/],
    [' BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ana\r\nEND:VCARD', /continuation/],
  ])('rejects %j on content', (card, detail) => {
    expect(() => encode(card)).toThrow(blames('content', detail));
  });
});

describe('vcard build, render, decode and parse', () => {
  // Text rich in what vCard escapes or folds: separators, line breaks, multi-byte characters.
  const unit = fc.oneof(
    fc.constantFrom('\\', ',', ';', ':', '\n', '\r\n', '\r', ' ', '\t', 'é', '😀'),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
  );
  const text = fc
    .string({ unit, minLength: 1, maxLength: 120 })
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    .filter((s) => !/[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/.test(s));
  const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
  const fields = fc.record(
    {
      firstName: text.filter((s) => /\S/.test(s)),
      lastName: optional(text),
      organization: optional(text),
      title: optional(text),
      phone: optional(fc.stringMatching(/^\+?\d[\d ()-]{0,18}$/)),
      email: optional(fc.constantFrom('ana@example.com', 'first.last+tag@sub.example.org')),
      url: optional(fc.webUrl({ validSchemes: ['https'], withQueryParameters: true })),
      address: optional(text),
      note: optional(text),
    },
    { requiredKeys: ['firstName'] },
  );
  // Whatever line break a value held, the card gives back LF (`\n` has one meaning in vCard).
  const expected = (original: VcardFields) =>
    Object.fromEntries(
      Object.entries(original)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, k === 'url' ? v : String(v).replace(/\r\n|\r/g, '\n')]),
    );

  it(
    'gives back the fields it was built from after a round trip through zbar and ZXing, and every physical line ' +
      'fits in 75 octets',
    async () => {
      await fc.assert(
        fc.asyncProperty(fields, async (original) => {
          const card = encode(original);
          for (const line of card.split('\r\n')) expect(octets(line)).toBeLessThanOrEqual(75);
          expect(parseVcard(await scanBack(card))).toEqual(expected(original));
        }),
        { numRuns: DECODED_RUNS },
      );
    },
    120_000,
  );
});
