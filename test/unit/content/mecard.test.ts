// mecard content: segno's MeCard byte for byte (NOTE for its MEMO), the name's last/first separator, refusals naming
// the field.
import { beforeAll, describe, expect, it } from 'vitest';
import { encodeContent } from '../../../src/domain/content/index.js';
import { blames } from './blames.js';
import { segnoData } from './segno.js';

const encode = (content: unknown) => encodeContent('mecard', content);

let segno: Record<string, string>;
beforeAll(() => {
  segno = segnoData([
    `out['mecard'] = h.make_mecard_data(name='Lovelace Ada', phone='+441234567890', email='ada@example.com', url='https://example.com/a:b', memo='Note; with: delimiters')`,
    `out['mecard_min'] = h.make_mecard_data(name='Doe John')`,
    `out['mecard_last_first'] = h.make_mecard_data(name='Doe,John', phone='+15550100')`,
  ]);
});

describe('mecard content', () => {
  it(
    "matches segno's MeCard (its MEMO is NOTE here, the tag ZXing reads) and escapes \\ ; , : outside the name's " +
      'separator',
    () => {
      const fields = {
        name: 'Lovelace Ada',
        phone: '+441234567890',
        email: 'ada@example.com',
        url: 'https://example.com/a:b',
        note: 'Note; with: delimiters',
      };
      expect(encode(fields)).toBe(segno.mecard!.replace('MEMO:', 'NOTE:'));
      expect(encode({ name: 'Doe John' })).toBe(segno.mecard_min);
      expect(encode({ name: 'Doe,John', address: '1 Main St\\' })).toBe('MECARD:N:Doe,John;ADR:1 Main St\\\\;;');
    },
  );

  it("writes a comma in name as MeCard's last/first separator, as segno does, and escapes any later comma", () => {
    expect(encode({ name: 'Doe,John', phone: '+15550100' })).toBe(segno.mecard_last_first);
    expect(encode({ name: 'Doe,John, Jr.' })).toBe('MECARD:N:Doe,John\\, Jr.;;');
    expect(encode({ name: "O'Brien;Co:x" })).toBe("MECARD:N:O'Brien\\;Co\\:x;;");
  });

  it.each([
    [{ phone: '1' }, 'content.name', /required/],
    [{ name: 'x'.repeat(101) }, 'content.name', /./],
    ['BEGIN:VCARD', 'content', /MECARD/],
  ])('rejects %j, naming %s', (content, field, detail) => {
    expect(() => encode(content)).toThrow(blames(field, detail));
  });
});
