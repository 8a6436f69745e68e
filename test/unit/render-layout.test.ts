// Image layout and colour rules: whole-pixel modules, exact size, scannable contrast.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors.js';
import { assertScannableColours, canonicalColour } from '../../src/domain/render-options.js';
import { layoutFor, SizeTooSmallError } from '../../src/render/layout.js';

const matrix = (size: number) => ({ size, modules: new Uint8Array(size * size) });

describe('layoutFor', () => {
  it('uses whole pixels per module and centres the code in exactly the requested size', () => {
    const layout = layoutFor(matrix(25), 512, 4); // 33 modules with quiet zone
    expect(layout.scale).toBe(15);
    expect(layout.side).toBe(512);
    expect(layout.offset).toBe(Math.floor((512 - 15 * 33) / 2) + 4 * 15);
  });

  it('refuses a size smaller than two pixels per module, naming the minimum', () => {
    expect(() => layoutFor(matrix(177), 64, 4)).toThrow(SizeTooSmallError);
    try {
      layoutFor(matrix(177), 64, 4);
    } catch (error) {
      expect((error as SizeTooSmallError).minimumSize).toBe(370);
    }
  });

  it('never draws a module with one pixel: the minimum size gives exactly two', () => {
    expect(() => layoutFor(matrix(21), 57, 4)).toThrow(SizeTooSmallError); // 29 modules fit once in 57 px, not twice
    expect(layoutFor(matrix(21), 58, 4).scale).toBe(2);
  });
});

describe('colour rules', () => {
  it('canonicalises #RRGGBB to lowercase #rrggbbaa', () => {
    expect(canonicalColour('#1A2B3C')).toBe('#1a2b3cff');
    expect(canonicalColour('#1A2B3C80')).toBe('#1a2b3c80');
  });

  it('accepts dark-on-light pairs with enough contrast and refuses faint or inverted ones', () => {
    expect(() => assertScannableColours('#000000ff', '#ffffffff')).not.toThrow();
    expect(() => assertScannableColours('#1a237eff', '#fff8e1ff')).not.toThrow();
    expect(() => assertScannableColours('#777777ff', '#888888ff')).toThrow(ApiError);
    expect(() => assertScannableColours('#ffffffff', '#000000ff')).toThrow(/darker/);
    expect(() => assertScannableColours('#00000010', '#ffffffff')).toThrow(ApiError); // nearly transparent dark modules
  });
});
