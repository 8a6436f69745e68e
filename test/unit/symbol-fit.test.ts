// The pre-metering check agrees with the render itself: what symbolFit passes draws, and what it refuses fails the same
// way.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_CORRECTION_LEVELS, type RenderSpec } from '../../src/domain/render-options.js';
import { SizeTooSmallError } from '../../src/render/layout.js';
import { PayloadTooLongError } from '../../src/render/qr-matrix.js';
import { renderImage } from '../../src/render/render-image.js';
import { symbolFit, type SymbolFit } from '../../src/render/symbol-fit.js';

/** What the render itself ends in, in symbolFit's terms. */
function renderOutcome(spec: RenderSpec): SymbolFit {
  try {
    renderImage(spec);
    return { ok: true };
  } catch (error) {
    if (error instanceof PayloadTooLongError) return { ok: false, reason: 'too_long', limit: error.limit };
    if (error instanceof SizeTooSmallError)
      return { ok: false, reason: 'size_too_small', minimumSize: error.minimumSize };
    throw error;
  }
}

// Near every capacity edge: digits, alphanumerics, Latin-1, Kanji and emoji pack differently from their byte length.
const ALPHABETS = [
  '0123456789',
  '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:',
  'abcdefghij:/?=&.-_0123456789',
  'éüßa1',
  '漢字テストa',
  'a😀é漢',
];
const payload = fc
  .tuple(fc.constantFrom(...ALPHABETS), fc.integer({ min: 1, max: 7200 }), fc.integer({ min: 1, max: 2 ** 30 }))
  .map(([alphabet, length, seed]) => {
    const chars = Array.from(alphabet);
    let x = seed;
    let text = '';
    for (let i = 0; i < length; i++) {
      x = (x * 1103515245 + 12345) % 2 ** 31; // a fixed LCG: the corpus is the same every run
      text += chars[x % chars.length];
    }
    return text;
  });
const spec = fc.record({
  payload,
  format: fc.constantFrom('png' as const, 'webp' as const, 'svg' as const),
  size: fc.integer({ min: 32, max: 400 }),
  margin: fc.integer({ min: 0, max: 10 }),
  errorCorrection: fc.constantFrom(...ERROR_CORRECTION_LEVELS),
  darkColor: fc.constant('#000000ff'),
  lightColor: fc.constant('#ffffffff'),
  eci: fc.boolean(),
});

describe('symbolFit', () => {
  it(
    'gives exactly the outcome of the render (drawn, too long with the limit, too small with the minimum) on 400 ' +
      'seeded specs',
    () => {
      const samples = fc.sample(spec, { numRuns: 400, seed: 20261123 });
      const disagreements = samples
        .map((s) => ({ s, fit: symbolFit(s), rendered: renderOutcome(s) }))
        .filter(({ fit, rendered }) => JSON.stringify(fit) !== JSON.stringify(rendered))
        .map(
          ({ s, fit, rendered }) =>
            `${s.payload.length} chars at ${s.errorCorrection}, ${s.size} px margin ${s.margin}: ` +
            `${JSON.stringify(fit)} vs ${JSON.stringify(rendered)}`,
        );
      expect(disagreements).toEqual([]);
      // The corpus reaches all three outcomes, or the agreement would prove little.
      const outcomes = new Set(
        samples.map((s) => {
          const fit = symbolFit(s);
          return fit.ok ? 'ok' : fit.reason;
        }),
      );
      expect([...outcomes].sort()).toEqual(['ok', 'size_too_small', 'too_long']);
    },
  );

  it(
    "agrees with the render at version 40's exact capacity and one character past it, for each kind of text its " +
      'shortcuts weigh',
    () => {
      // The most of each that fits at L (digits 7089, alphanumerics 4296, bytes 2953, Kanji 1817, two- and three-byte
      // UTF-8
      // behind ECI 26: 2952 bytes), then one more; drawn at 400 px, and at 100 px (too small).
      const fullest = [
        ['7', 7089],
        ['A', 4296],
        ['x', 2953],
        ['é', 1476],
        ['漢', 1817],
        ['ｱ', 984],
      ] as const;
      for (const [ch, count] of fullest) {
        for (const length of [count, count + 1]) {
          for (const size of [400, 100]) {
            const s: RenderSpec = {
              payload: ch.repeat(length),
              format: 'png',
              size,
              margin: 4,
              errorCorrection: 'L',
              darkColor: '#000000ff',
              lightColor: '#ffffffff',
              eci: false,
            };
            expect({ ch, length, size, fit: symbolFit(s) }).toEqual({ ch, length, size, fit: renderOutcome(s) });
            expect(symbolFit(s)).toMatchObject(
              length > count
                ? { reason: 'too_long' }
                : size === 400
                  ? { ok: true }
                  : { reason: 'size_too_small', minimumSize: 370 },
            );
          }
        }
      }
    },
  );
});
