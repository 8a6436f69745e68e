import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeContent } from '../../../src/domain/content/index.js';
import { parseWifi, type WifiFields } from '../../../src/domain/content/wifi.js';
import { DECODED_RUNS, scanBack } from '../../helpers/decode.js';
import { blames } from './blames.js';

const encode = (content: unknown) => encodeContent('wifi', content);

describe('wifi content from fields', () => {
  it('escapes \\ ; , " and : once each, as in the issue vector', () => {
    const payload = encode({ ssid: 'My;Net', password: 'pa:ss\\word,"x"', encryption: 'WPA' });
    expect(payload).toBe('WIFI:T:WPA;S:My\\;Net;P:pa\\:ss\\\\word\\,\\"x\\";;');
  });

  it('does not escape an already escaped-looking value a second time', () => {
    expect(encode({ ssid: 'a\\;b', encryption: 'nopass' })).toBe('WIFI:T:nopass;S:a\\\\\\;b;;');
  });

  it('leaves P out for an open network', () => {
    expect(encode({ ssid: 'Cafe', encryption: 'nopass' })).toBe('WIFI:T:nopass;S:Cafe;;');
  });

  it('adds H:true only when the network is hidden', () => {
    expect(encode({ ssid: 'Lab', password: 'secret123', encryption: 'WPA', hidden: true })).toBe(
      'WIFI:T:WPA;S:Lab;P:secret123;H:true;;',
    );
    expect(encode({ ssid: 'Lab', password: 'secret123', encryption: 'WPA', hidden: false })).toBe(
      'WIFI:T:WPA;S:Lab;P:secret123;;',
    );
  });

  it('accepts a WEP key of 13 characters or 26 hex digits', () => {
    expect(encode({ ssid: 'Old', password: 'abcdefghijklm', encryption: 'WEP' })).toBe(
      'WIFI:T:WEP;S:Old;P:abcdefghijklm;;',
    );
    expect(encode({ ssid: 'Old', password: '0123456789abcdef0123456789', encryption: 'WEP' })).toContain(
      'P:0123456789abcdef0123456789;',
    );
  });

  it.each([
    [{ encryption: 'nopass' }, 'content.ssid', /required/],
    [{ ssid: '', encryption: 'nopass' }, 'content.ssid', /empty/],
    [{ ssid: 'x'.repeat(33), encryption: 'nopass' }, 'content.ssid', /32 bytes/],
    [{ ssid: 'ç'.repeat(17), encryption: 'nopass' }, 'content.ssid', /32 bytes/],
    [{ ssid: 'Home' }, 'content.encryption', /required/],
    [{ ssid: 'Home', encryption: 'WPA2' }, 'content.encryption', /WPA, WEP or nopass/],
    [{ ssid: 'Home', encryption: 'WPA' }, 'content.password', /required when encryption is WPA/],
    [{ ssid: 'Home', password: '', encryption: 'WEP' }, 'content.password', /required when encryption is WEP/],
    [
      { ssid: 'Home', password: 'secret', encryption: 'nopass' },
      'content.password',
      /omitted when encryption is nopass/,
    ],
    [{ ssid: 'Home', password: 'abcdef', encryption: 'WEP' }, 'content.password', /WEP key/],
    [{ ssid: 'Home', password: 12345678, encryption: 'WPA' }, 'content.password', /must be a string/],
    [{ ssid: 'Home', encryption: 'nopass', hidden: 'yes' }, 'content.hidden', /must be a boolean/],
    [{ ssid: 'Home', encryption: 'nopass', band: '5GHz' }, 'content.band', /not a field/],
  ])('rejects %j, naming %s', (content, field, detail) => {
    expect(() => encode(content)).toThrow(blames(field, detail));
  });

  it('rejects content that is neither a string nor an object', () => {
    expect(() => encode(42)).toThrow(blames('content'));
    expect(() => encode(['WIFI:S:x;;'])).toThrow(blames('content'));
  });
});

describe('wifi content from a ready string', () => {
  it.each([
    'WIFI:T:WPA;S:My\\;Net;P:pa\\:ss\\\\word\\,\\"x\\";;',
    'WIFI:S:Home;T:WPA;P:secret;;',
    'WIFI:S:Open;;',
    'WIFI:S:Lab;T:nopass;P:;H:false;;',
    'WIFI:T:WPA;S:Corp;E:PEAP;PH2:MSCHAPV2;I:me;P:pw;;',
  ])('returns %s unchanged', (payload) => {
    expect(encode(payload)).toBe(payload);
  });

  it('reads the escaped vector back into its fields', () => {
    expect(parseWifi('WIFI:T:WPA;S:My\\;Net;P:pa\\:ss\\\\word\\,\\"x\\";;')).toEqual({
      ssid: 'My;Net',
      password: 'pa:ss\\word,"x"',
      encryption: 'WPA',
    });
  });

  it('reads a missing T as an open network, as ZXing does', () => {
    expect(parseWifi('WIFI:S:Open;;')).toEqual({ ssid: 'Open', encryption: 'nopass' });
  });

  it.each([
    ['wifi:S:Home;;', /start with WIFI:/],
    ['WIFI:T:WPA;P:secret;;', /S \(network name\)/],
    ['WIFI:S:;;', /S \(network name\)/],
    ['WIFI:s:Home;;', /S \(network name\)/],
    ['WIFI:T:WPA2;S:Home;P:x;;', /T must be WPA, WEP or nopass/],
    ['WIFI:S:Home;H:maybe;;', /H must be true or false/],
    ['WIFI:S:Home\\;', /unescaped ;/],
    ['WIFI:S:Home', /unescaped ;/],
    ['WIFI:S:Home\\', /escape/],
    ['WIFI:S:Home;S:Other;;', /only once/],
    ['WIFI:S:Home;;T:WPA;', /nothing after/],
    ['WIFI:S:Home;garbage;;', /KEY:value/],
  ])('rejects %s on content', (payload, detail) => {
    expect(() => encode(payload)).toThrow(blames('content', detail));
  });
});

describe('wifi build, render, decode and parse', () => {
  // Values rich in the characters the format reserves, mixed with any other code point.
  const value = (length: { minLength: number; maxLength: number }) =>
    fc.string({
      unit: fc.oneof(
        fc.constantFrom('\\', ';', ',', '"', ':'),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      ),
      ...length,
    });
  const ssid = value({ minLength: 1, maxLength: 32 }).filter((s) => new TextEncoder().encode(s).length <= 32);
  const fields: fc.Arbitrary<WifiFields> = fc
    .oneof(
      fc.record({ ssid, encryption: fc.constant('WPA' as const), password: value({ minLength: 1, maxLength: 63 }) }),
      fc.record({ ssid, encryption: fc.constant('WEP' as const), password: value({ minLength: 13, maxLength: 13 }) }),
      fc.record({ ssid, encryption: fc.constant('nopass' as const) }),
    )
    .chain((base) =>
      fc.option(fc.constant(true), { nil: undefined }).map((hidden) => (hidden ? { ...base, hidden } : base)),
    );

  it(
    'gives back the fields it was built from, whatever characters they hold, after a round trip through zbar and ' +
      'ZXing',
    async () => {
      await fc.assert(
        fc.asyncProperty(fields, async (original) => {
          const payload = encode(original);
          expect(parseWifi(await scanBack(payload))).toEqual(original);
        }),
        { numRuns: DECODED_RUNS },
      );
    },
    120_000,
  );
});
