// A branded design whose level is left open and fails its check, where the level above cannot be drawn, is refused
// naming a change that passes.
import { describe, expect, it } from 'vitest';
import type { Branding } from '../../src/domain/branding.js';
import { DesignCaches } from '../../src/render/branded/design-caches.js';
import { renderDesign, UnscannableDesignError } from '../../src/render/branded/render-design.js';

const content = `https://example.com/${'a'.repeat(120)}`;
/** 2 px dots, circle finders, no quiet zone: version 7 at L fills 90 px exactly, and the check cannot read it. */
const branding: Branding = {
  moduleShape: 'dots',
  finderShape: 'circle',
  finderColor: '#000000ff',
  errorCorrectionFixed: false,
};
const spec = (size: number) =>
  ({
    payload: content,
    format: 'png',
    size,
    margin: 0,
    errorCorrection: 'L',
    darkColor: '#000000ff',
    lightColor: '#ffffffff',
    branding,
  }) as const;

describe('a design with its level left open', () => {
  it(
    'is refused naming a change that passes, not ' + 'answered 400, when the level above no longer fits ' + 'its size',
    async () => {
      const refusal = await renderDesign(spec(90), branding, new DesignCaches()).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(UnscannableDesignError);
      expect((refusal as UnscannableDesignError).changes).toEqual(['finderShape "square"']);
    },
  );
});
