// The logo's error-correction maths: the level chosen for a covered area, and the largest scale each level allows.
import { describe, expect, it } from 'vitest';
import { clearedSide, largestLogoScale, logoFits } from '../../src/domain/branding.js';
import { matrixForDesign, UnscannableDesignError } from '../../src/render/branded/render-design.js';
import { buildMatrix } from '../../src/render/qr-matrix.js';

const BASE = {
  payload: 'https://example.com/branded/design?campaign=spring',
  format: 'png',
  size: 512,
  margin: 4,
  darkColor: '#000000ff',
  lightColor: '#ffffffff',
} as const;
const design = (scale: number, errorCorrectionFixed: boolean) =>
  ({
    moduleShape: 'square',
    finderShape: 'square',
    finderColor: '#000000ff',
    errorCorrectionFixed,
    logo: { id: 'l', digest: 'd', png: new Uint8Array(), scale },
  }) as const;

describe('logo coverage', () => {
  it('clears an odd number of modules, so the square centres on a module', () => {
    for (const [size, scale] of [
      [21, 0.2],
      [29, 0.25],
      [57, 0.3],
      [177, 0.1],
    ] as const)
      expect(clearedSide(size, scale) % 2).toBe(1);
  });

  it('allows a larger logo at each higher error correction level', () => {
    const scales = (['L', 'M', 'Q', 'H'] as const).map((level) => largestLogoScale(41, level) ?? 0);
    expect([...scales].sort((a, b) => a - b)).toEqual(scales);
    expect(scales[3]).toBeGreaterThan(scales[0]!);
    expect(logoFits(41, scales[3]!, 'H')).toBe(true);
    expect(logoFits(41, scales[3]! + 0.01, 'H')).toBe(false);
  });

  it('raises the error correction for a logo when the caller did not fix it', () => {
    const { errorCorrection } = matrixForDesign(
      { ...BASE, errorCorrection: 'M', branding: design(0.2, false) },
      design(0.2, false),
    );
    expect(errorCorrection).toBe('Q');
  });

  it('refuses, naming the largest scale, when the caller fixed a level too low for the logo', () => {
    let error: unknown;
    try {
      matrixForDesign({ ...BASE, errorCorrection: 'M', branding: design(0.2, true) }, design(0.2, true));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UnscannableDesignError);
    expect((error as UnscannableDesignError).maxLogoScale).toBeLessThan(0.2);
  });
});

describe('a branded matrix', () => {
  it('carries the ECI designator when the spec asks for it, as the plain path does, with or without a logo', () => {
    // Kanji mode without eci
    const spec = { ...BASE, payload: '東京都渋谷区 2024年 予約番号', errorCorrection: 'Q', eci: true } as const;
    for (const branding of [{ ...design(0.1, true), logo: undefined }, design(0.1, true)]) {
      expect(matrixForDesign(spec, branding).matrix).toEqual(buildMatrix(spec.payload, 'Q', { eci: true }));
      expect(matrixForDesign(spec, branding).matrix).not.toEqual(buildMatrix(spec.payload, 'Q', { eci: false }));
    }
  });
});
