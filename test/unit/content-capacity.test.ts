// content_too_long states the real limit of the content's kind as the charset policy writes it: exactly that much fits,
// one more is refused.
import { describe, expect, it } from 'vitest';
import type { ErrorCorrectionLevel, RenderSpec } from '../../src/domain/render-options.js';
import { contentCapacity } from '../../src/render/content-capacity.js';
import { symbolFit } from '../../src/render/symbol-fit.js';

const spec = (payload: string, errorCorrection: ErrorCorrectionLevel, eci = false): RenderSpec => ({
  payload,
  format: 'png',
  size: 4096,
  margin: 4,
  errorCorrection,
  darkColor: '#000000ff',
  lightColor: '#ffffffff',
  ...(eci ? { eci: true } : {}),
});

/** Content of `n` units of one kind. */
const KINDS = {
  numeric: (n: number) => '7'.repeat(n),
  alphanumeric: (n: number) => 'HTTPS://EXAMPLE.COM/'.repeat(Math.ceil(n / 20)).slice(0, n),
  ascii: (n: number) => 'https://example.com/menu?'.repeat(Math.ceil(n / 25)).slice(0, n),
  kanji: (n: number) => '東京都'.repeat(Math.ceil(n / 3)).slice(0, n),
  cyrillic: (n: number) => 'ж'.repeat(n), // in JIS X 0208: Kanji mode carries it too
  utf8: (n: number) => 'ă'.repeat(n / 2), // two bytes each (n is even below) that zbar reads only as UTF-8: no ECI
  'utf8+eci': (n: number) => 'é'.repeat(n / 2), // bytes zbar would read in another charset: behind the ECI
} as const;

describe('contentCapacity', () => {
  it.each([
    ['numeric', 'L', 7089, 'digits'],
    ['numeric', 'H', 3057, 'digits'],
    ['alphanumeric', 'M', 3391, 'characters'],
    ['ascii', 'Q', 1663, 'characters'],
    ['kanji', 'L', 1817, 'characters'],
    ['kanji', 'H', 784, 'characters'],
    ['cyrillic', 'M', 1435, 'characters'],
    ['utf8', 'M', 2330, 'bytes'], // 2,331 is the limit; in two-byte characters 2,330 is the last that fits
    ['utf8+eci', 'M', 2330, 'bytes'],
  ] as const)(
    '%s at %s: %i %s fit and one more is refused, with that figure in the answer',
    (kind, level, limit, unit) => {
      const make = KINDS[kind];
      const step = kind.startsWith('utf8') ? 2 : 1;
      expect(symbolFit(spec(make(limit), level))).toEqual({ ok: true });
      const over = make(limit + step);
      expect(symbolFit(spec(over, level))).toMatchObject({ ok: false, reason: 'too_long' });
      const capacity = contentCapacity(over, level, false);
      const stated = kind === 'utf8' ? limit + 1 : limit;
      expect(capacity).toMatchObject({
        encoding: kind === 'cyrillic' ? 'kanji' : kind,
        unit,
        limit: stated,
        length: limit + step,
      });
      expect(capacity.detail).toContain(
        `at error correction ${level} a QR code holds at most ${stated.toLocaleString('en-US')}`,
      );
    },
  );

  it('with eci: true, Japanese is counted as UTF-8 bytes behind ECI 26, as it is then written', () => {
    const over = KINDS.kanji(800); // 2,400 bytes of UTF-8
    expect(symbolFit(spec(over, 'M', true))).toMatchObject({ ok: false, reason: 'too_long' });
    expect(contentCapacity(over, 'M', true)).toMatchObject({
      encoding: 'utf8+eci',
      unit: 'bytes',
      limit: 2330,
      length: 2400,
    });
  });
});
