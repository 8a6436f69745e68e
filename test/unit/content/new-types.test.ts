// epc, upi, geo, tel, event and mecard: the standards' published examples byte for byte, segno's helpers as an independent implementation, and refusals naming the field.
import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { encodeContent, type QrType } from '../../../src/domain/content/index.js';
import { blames } from './blames.js';

const encode = (type: QrType, content: unknown) => encodeContent(type, content);

// Debian's python3-segno, run once for every case below (the pyenv python3 on PATH lacks segno).
const SEGNO_SCRIPT = `
import json, sys, segno.helpers as h
out = {}
out['epc_red_cross'] = h._make_epc_qr_data(name='Red Cross', iban='BE72000000001616', amount=1, text='Urgency fund', bic='BPOTBEB1', purpose='CHAR', encoding='utf-8').decode()
out['epc_reference'] = h._make_epc_qr_data(name='François Müller', iban='DE89370400440532013000', amount='12.3', reference='RF18539007547034', encoding='utf-8').decode()
out['epc_cents'] = h._make_epc_qr_data(name='Acme', iban='AT611904300234573201', amount='999999999.99', text='Invoice 2026/11', bic='BKAUATWWXXX', encoding='utf-8').decode()
out['geo_rfc'] = h.make_geo_data(13.4125, 103.8667)
out['geo_south'] = h.make_geo_data(-33.8568, 151.2153)
out['mecard'] = h.make_mecard_data(name='Lovelace Ada', phone='+441234567890', email='ada@example.com', url='https://example.com/a:b', memo='Note; with: delimiters')
out['mecard_min'] = h.make_mecard_data(name='Doe John')
out['mecard_last_first'] = h.make_mecard_data(name='Doe,John', phone='+15550100')
print(json.dumps(out))
`;
let segno: Record<string, string>;
beforeAll(() => {
  segno = JSON.parse(execFileSync('/usr/bin/python3', ['-c', SEGNO_SCRIPT], { encoding: 'utf8', timeout: 20_000 })) as Record<string, string>;
});

describe('epc content (EPC069-12 v002)', () => {
  it("reproduces the standard's example (Red Cross Belgium) byte for byte, as segno writes it in UTF-8", () => {
    const payload = encode('epc', { name: 'Red Cross', iban: 'BE72000000001616', bic: 'BPOTBEB1', amount: 1, purpose: 'CHAR', text: 'Urgency fund' });
    expect(payload).toBe('BCD\n002\n1\nSCT\nBPOTBEB1\nRed Cross\nBE72000000001616\nEUR1\nCHAR\n\nUrgency fund');
    expect(payload).toBe(segno.epc_red_cross);
  });

  it('matches segno with a structured reference, UTF-8 names, an IBAN written with spaces and a maximal amount', () => {
    expect(encode('epc', { name: 'François Müller', iban: 'DE89 3704 0044 0532 0130 00', amount: 12.3, reference: 'RF18539007547034' })).toBe(
      segno.epc_reference,
    );
    expect(encode('epc', { name: 'Acme', iban: 'AT611904300234573201', amount: 999999999.99, text: 'Invoice 2026/11', bic: 'bkauatwwxxx' })).toBe(
      segno.epc_cents,
    );
  });

  it('accepts the ready example and checks its IBAN', () => {
    const ready = 'BCD\n001\n1\nSCT\nBPOTBEB1\nRed Cross\nBE72000000001616\nEUR1\nCHAR\n\nUrgency fund\nSample EPC QR code';
    expect(encode('epc', ready)).toBe(ready);
    expect(() => encode('epc', ready.replace('BE72', 'BE73'))).toThrow(blames('content', /checksum/));
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
    expect(() => encode('epc', content)).toThrow(blames(field, detail));
  });
});

describe('upi content', () => {
  it('writes upi://pay with percent-encoded values, the amount with two decimals and cu=INR', () => {
    expect(encode('upi', { vpa: 'shop@okaxis', name: 'Corner Shop & Co', amount: 120, note: 'Order #42 – tea' })).toBe(
      'upi://pay?pa=shop@okaxis&pn=Corner%20Shop%20%26%20Co&am=120.00&cu=INR&tn=Order%20%2342%20%E2%80%93%20tea',
    );
    expect(encode('upi', { vpa: 'a.b-c@upi', name: 'A' })).toBe('upi://pay?pa=a.b-c@upi&pn=A&cu=INR');
  });

  it.each([
    [{ vpa: 'no-at-sign', name: 'A' }, 'content.vpa', /UPI address/],
    [{ vpa: 'ab@upi' }, 'content.name', /required/],
    [{ vpa: 'ab@upi', name: 'A', amount: 1.005 }, 'content.amount', /two decimals/],
    ['https://example.com', 'content', /upi:\/\/pay/],
  ])('rejects %j, naming %s', (content, field, detail) => {
    expect(() => encode('upi', content)).toThrow(blames(field, detail));
  });
});

describe('geo content (RFC 5870)', () => {
  it("reproduces RFC 5870's example and segno's geo data", () => {
    expect(encode('geo', { latitude: 13.4125, longitude: 103.8667 })).toBe('geo:13.4125,103.8667');
    expect(encode('geo', { latitude: 13.4125, longitude: 103.8667 })).toBe(segno.geo_rfc);
    expect(encode('geo', { latitude: -33.8568, longitude: 151.2153 })).toBe(segno.geo_south);
    expect(encode('geo', { latitude: 48.201, longitude: 16.3695, altitude: 183 })).toBe('geo:48.201,16.3695,183');
    expect(encode('geo', 'geo:48.2010,16.3695,183')).toBe('geo:48.2010,16.3695,183');
    expect(encode('geo', { latitude: 1e-7, longitude: 0 })).toBe('geo:0.0000001,0');
  });

  it.each([
    [{ latitude: 91, longitude: 0 }, 'content.latitude', /-90 and 90/],
    [{ latitude: 0, longitude: -180.5 }, 'content.longitude', /-180 and 180/],
    [{ latitude: 0 }, 'content.longitude', /required/],
    ['geo:91,0', 'content', /latitude/],
    ['geo:1;2', 'content', /geo:/],
  ])('rejects %j, naming %s', (content, field, detail) => {
    expect(() => encode('geo', content)).toThrow(blames(field, detail));
  });
});

describe('tel content (RFC 3966)', () => {
  it("reproduces RFC 3966's example and writes spaces as visual separators", () => {
    expect(encode('tel', '+1-201-555-0123')).toBe('tel:+1-201-555-0123');
    expect(encode('tel', 'tel:+1-201-555-0123')).toBe('tel:+1-201-555-0123');
    expect(encode('tel', '+44 20 7946 0958')).toBe('tel:+44-20-7946-0958');
  });

  it.each(['0201 555 0123', '+1 555 CALL', '+12', '+1234567890123456', 'tel:+1 555;ext=1'])('rejects %j', (content) => {
    expect(() => encode('tel', content)).toThrow(blames('content', /./));
  });
});

describe('event content (iCalendar VEVENT)', () => {
  it('writes UTC DTSTART/DTEND and escapes text per RFC 5545', () => {
    expect(
      encode('event', {
        summary: 'Launch; party, v2',
        start: '2026-12-01T18:00:00+01:00',
        end: '2026-12-01T20:30Z',
        location: 'Hall \\ B',
        description: 'Line 1\nLine 2',
      }),
    ).toBe(
      'BEGIN:VEVENT\r\nSUMMARY:Launch\\; party\\, v2\r\nDTSTART:20261201T170000Z\r\nDTEND:20261201T203000Z\r\nLOCATION:Hall \\\\ B\r\nDESCRIPTION:Line 1\\nLine 2\r\nEND:VEVENT\r\n',
    );
  });

  it('ends every line with CRLF, folds past 75 octets, and reads back field for field in python3-icalendar', () => {
    const fields = {
      summary: 'Réunion; équipe, Q4 — 会議',
      start: '2026-12-01T18:00:00+01:00',
      end: '2026-12-01T20:30Z',
      location: 'Salle \\ B',
      description: `Line 1\nLine 2, ${'long text with accents é '.repeat(8)}`,
    };
    const payload = encode('event', fields);
    expect(payload.endsWith('END:VEVENT\r\n')).toBe(true);
    expect(payload.replaceAll('\r\n', '')).not.toMatch(/[\r\n]/); // no bare CR or LF: every line break is CRLF
    expect(payload.split('\r\n').every((line) => Buffer.byteLength(line) <= 75)).toBe(true);
    const script = `
import json, sys, icalendar
raw = sys.stdin.buffer.read()
event = icalendar.Event.from_ical(raw)
print(json.dumps({'summary': str(event['SUMMARY']), 'location': str(event['LOCATION']), 'description': str(event['DESCRIPTION']),
  'start': event.decoded('DTSTART').isoformat(), 'end': event.decoded('DTEND').isoformat(), 'lines': raw.count(b'\\r\\n')}))
`;
    const parsed = JSON.parse(execFileSync('/usr/bin/python3', ['-c', script], { input: payload, encoding: 'utf8', timeout: 20_000 })) as Record<
      string,
      unknown
    >;
    expect(parsed).toEqual({
      summary: fields.summary,
      location: fields.location,
      description: fields.description,
      start: '2026-12-01T17:00:00+00:00',
      end: '2026-12-01T20:30:00+00:00',
      lines: payload.split('\r\n').length - 1,
    });
  });

  it.each([
    [{ summary: 'x', start: '2026-12-01T18:00' }, 'content.start', /ISO 8601/],
    [{ summary: 'x', start: '2026-13-45T18:00Z' }, 'content.start', /real date-time/],
    [{ summary: 'x', start: '2026-12-01T18:00Z', end: '2026-12-01T17:00Z' }, 'content.end', /before/],
    [{ start: '2026-12-01T18:00Z' }, 'content.summary', /required/],
  ])('rejects %j, naming %s', (content, field, detail) => {
    expect(() => encode('event', content)).toThrow(blames(field, detail));
  });
});

describe('mecard content', () => {
  it("matches segno's MeCard (its MEMO is NOTE here, the tag ZXing reads) and escapes \\ ; , : outside the name's separator", () => {
    const fields = { name: 'Lovelace Ada', phone: '+441234567890', email: 'ada@example.com', url: 'https://example.com/a:b', note: 'Note; with: delimiters' };
    expect(encode('mecard', fields)).toBe(segno.mecard!.replace('MEMO:', 'NOTE:'));
    expect(encode('mecard', { name: 'Doe John' })).toBe(segno.mecard_min);
    expect(encode('mecard', { name: 'Doe,John', address: '1 Main St\\' })).toBe('MECARD:N:Doe,John;ADR:1 Main St\\\\;;');
  });

  it("writes a comma in name as MeCard's last/first separator, as segno does, and escapes any later comma", () => {
    expect(encode('mecard', { name: 'Doe,John', phone: '+15550100' })).toBe(segno.mecard_last_first);
    expect(encode('mecard', { name: 'Doe,John, Jr.' })).toBe('MECARD:N:Doe,John\\, Jr.;;');
    expect(encode('mecard', { name: "O'Brien;Co:x" })).toBe("MECARD:N:O'Brien\\;Co\\:x;;");
  });

  it.each([
    [{ phone: '1' }, 'content.name', /required/],
    [{ name: 'x'.repeat(101) }, 'content.name', /./],
    ['BEGIN:VCARD', 'content', /MECARD/],
  ])('rejects %j, naming %s', (content, field, detail) => {
    expect(() => encode('mecard', content)).toThrow(blames(field, detail));
  });
});
