// epc content (EPC069-12 v002): the standard's published example byte for byte, segno's helper as an independent
// implementation, refusals naming the field.
import { beforeAll, describe, expect, it } from 'vitest';
import { encodeContent } from '../../../src/domain/content/index.js';
import { blames } from './blames.js';
import { segnoData } from './segno.js';

const encode = (content: unknown) => encodeContent('epc', content);

let segno: Record<string, string>;
beforeAll(() => {
  segno = segnoData([
    `out['epc_red_cross'] = h._make_epc_qr_data(name='Red Cross', iban='BE72000000001616', amount=1, ` +
      `text='Urgency fund', bic='BPOTBEB1', purpose='CHAR', encoding='utf-8').decode()`,
    `out['epc_reference'] = h._make_epc_qr_data(name='François Müller', iban='DE89370400440532013000', ` +
      `amount='12.3', reference='RF18539007547034', encoding='utf-8').decode()`,
    `out['epc_cents'] = h._make_epc_qr_data(name='Acme', iban='AT611904300234573201', amount='999999999.99', ` +
      `text='Invoice 2026/11', bic='BKAUATWWXXX', encoding='utf-8').decode()`,
  ]);
});

describe('epc content (EPC069-12 v002)', () => {
  it("reproduces the standard's example (Red Cross Belgium) byte for byte, as segno writes it in UTF-8", () => {
    const payload = encode({
      name: 'Red Cross',
      iban: 'BE72000000001616',
      bic: 'BPOTBEB1',
      amount: 1,
      purpose: 'CHAR',
      text: 'Urgency fund',
    });
    expect(payload).toBe('BCD\n002\n1\nSCT\nBPOTBEB1\nRed Cross\nBE72000000001616\nEUR1\nCHAR\n\nUrgency fund');
    expect(payload).toBe(segno.epc_red_cross);
  });

  it('matches segno with a structured reference, UTF-8 names, an IBAN written with spaces and a maximal amount', () => {
    expect(
      encode({
        name: 'François Müller',
        iban: 'DE89 3704 0044 0532 0130 00',
        amount: 12.3,
        reference: 'RF18539007547034',
      }),
    ).toBe(segno.epc_reference);
    expect(
      encode({
        name: 'Acme',
        iban: 'AT611904300234573201',
        amount: 999999999.99,
        text: 'Invoice 2026/11',
        bic: 'bkauatwwxxx',
      }),
    ).toBe(segno.epc_cents);
  });

  it('accepts the ready example and checks its IBAN', () => {
    const ready =
      'BCD\n001\n1\nSCT\nBPOTBEB1\nRed Cross\nBE72000000001616\nEUR1\nCHAR\n\nUrgency fund\nSample EPC QR code';
    expect(encode(ready)).toBe(ready);
    expect(() => encode(ready.replace('BE72', 'BE73'))).toThrow(blames('content', /checksum/));
  });

  it.each([
    [{ name: 'X', iban: 'BE72000000001617' }, 'content.iban', /checksum/],
    [{ name: 'X', iban: 'nope' }, 'content.iban', /must be an IBAN/],
    [{ iban: 'BE72000000001616' }, 'content.name', /required/],
    [{ name: 'x'.repeat(71), iban: 'BE72000000001616' }, 'content.name', /70/],
    [{ name: 'X', iban: 'BE72000000001616', amount: 0 }, 'content.amount', /./],
    [{ name: 'X', iban: 'BE72000000001616', amount: 1_000_000_000 }, 'content.amount', /./],
    [{ name: 'X', iban: 'BE72000000001616', amount: 1.234 }, 'content.amount', /two decimals/],
    [{ name: 'X', iban: 'BE72000000001616', bic: 'BPOT' }, 'content.bic', /8 or 11/],
    [{ name: 'X', iban: 'BE72000000001616', purpose: 'CHARITY' }, 'content.purpose', /./],
    [{ name: 'X', iban: 'BE72000000001616', reference: 'RF18', text: 'both' }, 'content.text', /one or the other/],
    [{ name: 'X', iban: 'BE72000000001616', text: 'x'.repeat(141) }, 'content.text', /140/],
    [{ name: 'X', iban: 'BE72000000001616', reference: 'x'.repeat(36) }, 'content.reference', /35/],
  ])('rejects %j, naming %s', (content, field, detail) => {
    expect(() => encode(content)).toThrow(blames(field, detail));
  });
});
