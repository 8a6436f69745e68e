import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeContent } from '../../../src/domain/content/index.js';
import { crc16, parsePix, removeAccents, type PixFields } from '../../../src/domain/content/pix.js';
import { DECODED_RUNS, scanBack } from '../../helpers/decode.js';
import { blames } from './blames.js';

const encode = (content: unknown) => encodeContent('pix', content);

/** A BR Code body (ending in `6304`) with its correct CRC appended. */
const withCrc = (body: string) => body + crc16(body);

const VECTOR =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de ' +
  'Tal6008BRASILIA62070503***63041D3D';
const UUID_KEY = '123e4567-e12b-12d1-a456-426655440000';
const base = { key: UUID_KEY, name: 'Fulano de Tal', city: 'BRASILIA' };

describe('CRC16-CCITT-FALSE', () => {
  it('gives the catalogued check value 29B1 for "123456789"', () => {
    expect(crc16('123456789')).toBe('29B1');
  });

  it('pads to four uppercase hex digits', () => {
    expect(crc16('')).toBe('FFFF');
    expect(crc16('6304')).toMatch(/^[0-9A-F]{4}$/);
  });
});

describe('pix content from a ready BR Code', () => {
  it('accepts the issue vector unchanged', () => {
    expect(encode(VECTOR)).toBe(VECTOR);
  });

  it('rejects the vector with a wrong CRC', () => {
    expect(() => encode(VECTOR.replace(/1D3D$/, '1D3E'))).toThrow(
      blames('content', /CRC does not match \(expected 1D3D\)/),
    );
  });

  it('reads the vector field by field', () => {
    expect(parsePix(VECTOR)).toEqual({ key: UUID_KEY, name: 'Fulano de Tal', city: 'BRASILIA' });
  });

  it('accepts a dynamic code that carries a payload URL instead of a key', () => {
    const account = '0014br.gov.bcb.pix2525pix.example.com/qr/v2/abc';
    const code = withCrc(
      `00020101021226${account.length}${account}5204000053039865802BR5904ACME6006RECIFE62070503***6304`,
    );
    expect(encode(code)).toBe(code);
    expect(parsePix(code)).toMatchObject({ url: 'pix.example.com/qr/v2/abc' });
  });

  it.each([
    ['a truncated field', withCrc('000201265800').slice(0, 20), /shorter than its length/],
    ['a non-numeric header', withCrc(VECTOR.slice(0, -8).replace('5204', 'xx04') + '6304'), /2-digit id/],
    ['a first field other than 00=01', withCrc(VECTOR.slice(6, -8) + '6304'), /field 00 = 01/],
    ['no CRC at the end', VECTOR.slice(0, -8), /field 63/],
    [
      'a foreign GUI in field 26',
      withCrc(VECTOR.slice(0, -8).replace('br.gov.bcb.pix', 'br.gov.bcb.xxx') + '6304'),
      /00 = br.gov.bcb.pix/,
    ],
    ['an invalid key', withCrc(VECTOR.slice(0, -8).replace('123e4567-e12b', '123e4567-e12z') + '6304'), /key must be/],
    ['another currency', withCrc(VECTOR.slice(0, -8).replace('5303986', '5303840') + '6304'), /986/],
    ['another country', withCrc(VECTOR.slice(0, -8).replace('5802BR', '5802US') + '6304'), /country/],
    ['no merchant name', withCrc(VECTOR.slice(0, -8).replace('5913Fulano de Tal', '') + '6304'), /field 59/],
    ['a txid with symbols', withCrc(VECTOR.slice(0, -8).replace('62070503***', '62070503a-b') + '6304'), /txid/],
    ['a zero amount', withCrc(VECTOR.slice(0, -8).replace('5802BR', '54040.005802BR') + '6304'), /amount/],
    ['a repeated field', withCrc(VECTOR.slice(0, -8).replace('5802BR', '5802BR5802BR') + '6304'), /appears twice/],
  ])('rejects %s', (_, code, detail) => {
    expect(() => encode(code)).toThrow(blames('content', detail));
  });
});

describe('pix content from fields', () => {
  it('builds exactly the issue vector from its fields', () => {
    expect(encode(base)).toBe(VECTOR);
  });

  it('writes field 54 with two decimals only when an amount is given', () => {
    expect(encode({ ...base, amount: 10 })).toContain('540510.00');
    expect(encode({ ...base, amount: 0.5 })).toContain('54040.50');
    // 54 would sit between the currency (53) and the country (58).
    expect(encode(base)).toContain('53039865802BR');
  });

  it('puts the txid in 62-05, or *** when there is none', () => {
    expect(encode({ ...base, txid: 'Pedido42' })).toContain('62120508Pedido42');
    expect(encode(base)).toContain('62070503***');
  });

  it('puts the description in 26-02 and widens field 26 to match', () => {
    expect(encode({ ...base, description: 'Pizza' })).toContain(`26670014br.gov.bcb.pix0136${UUID_KEY}0205Pizza`);
  });

  it('removes accents from name, city and description', () => {
    const code = encode({ ...base, name: 'João Muñoz', city: 'São Paulo', description: 'Açaí' });
    expect(code).toContain('5910Joao Munoz');
    expect(code).toContain('6009Sao Paulo');
    expect(code).toContain('0204Acai');
  });

  it('counts the length limits after accents are removed', () => {
    expect(encode({ ...base, name: 'É'.repeat(25), city: 'Ã'.repeat(15) })).toContain(
      `5925${'E'.repeat(25)}6015${'A'.repeat(15)}`,
    );
  });

  it.each([
    ['CPF', '12345678909'],
    ['CNPJ', '11222333000181'],
    ['mobile phone', '+5511987654321'],
    ['landline phone', '+551133334444'],
    ['email', 'pagamentos@example.com.br'],
    ['random key', UUID_KEY],
  ])('accepts a %s key', (_, key) => {
    expect(parsePix(encode({ ...base, key })).key).toBe(key);
  });

  it.each([
    [{ ...base, key: '12345678900' }, 'content.key', /not a valid CPF/],
    [{ ...base, key: '11111111111' }, 'content.key', /not a valid CPF/],
    [{ ...base, key: '11222333000182' }, 'content.key', /not a valid CNPJ/],
    [{ ...base, key: '+5511987' }, 'content.key', /\+55 followed by 10 or 11 digits/],
    [{ ...base, key: '+14155550100' }, 'content.key', /\+55/],
    [{ ...base, key: 'not-a-key' }, 'content.key', /CPF .* CNPJ .* phone .* email .* random key/],
    [{ ...base, key: 'a@b' }, 'content.key', /email key/],
    [{ key: UUID_KEY, city: 'BRASILIA' }, 'content.name', /required/],
    [{ ...base, name: 'N'.repeat(26) }, 'content.name', /at most 25 characters/],
    [{ ...base, name: '   ' }, 'content.name', /blank/],
    [{ ...base, name: 'Café €' }, 'content.name', /ASCII/],
    [{ ...base, city: 'Ribeirão das Neves' }, 'content.city', /at most 15 characters/],
    [{ ...base, amount: 0 }, 'content.amount', /greater than 0/],
    [{ ...base, amount: -3 }, 'content.amount', /greater than 0/],
    [{ ...base, amount: 1.005 }, 'content.amount', /2 decimal places/],
    [{ ...base, amount: 1e10 }, 'content.amount', /below/],
    [{ ...base, amount: '10.00' }, 'content.amount', /must be a number/],
    [{ ...base, txid: 'pedido-42' }, 'content.txid', /letters or digits/],
    [{ ...base, txid: 'A'.repeat(26) }, 'content.txid', /letters or digits/],
    [{ ...base, description: 'd'.repeat(38) }, 'content.description', /at most 37 characters with this key/],
    [{ ...base, merchant: 'x' }, 'content.merchant', /not a field/],
  ])('rejects %j, naming %s', (content, field, detail) => {
    expect(() => encode(content)).toThrow(blames(field, detail));
  });

  it('takes a description that exactly fills field 26', () => {
    const code = encode({ ...base, description: 'd'.repeat(37) });
    expect(code).toContain('2699');
  });
});

describe('pix build, render, decode and parse', () => {
  const letters = fc.constantFrom(...'abcXYZ09 .-éÉçÇãõüñ');
  const plain = (maxLength: number) =>
    fc.string({ unit: letters, minLength: 1, maxLength }).filter((s) => s.trim() !== '');
  const key = fc.oneof(
    fc.constantFrom(
      '12345678909',
      '52998224725',
      '11222333000181',
      '11444777000161',
      '+5511987654321',
      '+556132101234',
      'a@b.io',
    ),
    fc.uuid(),
  );
  const fields: fc.Arbitrary<PixFields> = fc.record(
    {
      key,
      name: plain(25),
      city: plain(15),
      amount: fc.integer({ min: 1, max: 999_999_999_999 }).map((cents) => cents / 100),
      txid: fc.stringMatching(/^[A-Za-z0-9]{1,25}$/),
      description: plain(25),
    },
    { requiredKeys: ['key', 'name', 'city'] },
  );

  it(
    'gives back the fields it was built from after a round trip through zbar and ZXing, accents removed, with a ' +
      'CRC that checks',
    async () => {
      await fc.assert(
        fc.asyncProperty(fields, async (original) => {
          const expected: Record<string, unknown> = {
            ...original,
            name: removeAccents(original.name),
            city: removeAccents(original.city),
          };
          if (original.description !== undefined) expected.description = removeAccents(original.description);
          const payload = encode(original);
          expect(parsePix(await scanBack(payload))).toEqual(expected);
        }),
        { numRuns: DECODED_RUNS },
      );
    },
    120_000,
  );
});
