// The print check (sizeMm) of a design with a logo reads each version's codeword placement through the caller's
// DesignCaches: worked out on the first check, never again for the checks after it.
import { describe, expect, it } from 'vitest';
import { assertPrintable } from '../../src/adapters/render/render-outcome.js';
import type { RenderSpec } from '../../src/domain/render-options.js';
import { DesignCaches } from '../../src/render/branded/design-caches.js';
import { drawnModules } from '../../src/render/symbol-fit.js';

const spec: RenderSpec = {
  payload: 'https://example.com/print/a-poster-with-a-logo',
  format: 'pdf',
  size: 512,
  margin: 4,
  errorCorrection: 'M',
  darkColor: '#000000ff',
  lightColor: '#ffffffff',
  sizeMm: 40,
  branding: {
    moduleShape: 'square',
    finderShape: 'square',
    finderColor: '#000000ff',
    logo: { id: 'logo_print', digest: 'print', scale: 0.2 },
    errorCorrectionFixed: false,
  },
};

describe('the print check of a design with a logo', () => {
  it("works out each version's codeword placement once, however often the check runs", () => {
    const caches = new DesignCaches();
    assertPrintable(spec, 0.3, caches);
    const built = caches.placementTables;
    expect(built).toBeGreaterThan(0);
    for (let i = 0; i < 5; i++) assertPrintable(spec, 0.3, caches);
    expect(caches.placementTables).toBe(built);
  });

  it('measures the same symbol with the caches as without', () => {
    const caches = new DesignCaches();
    for (const scale of [0.1, 0.2, 0.25]) {
      const withLogo = { ...spec, branding: { ...spec.branding!, logo: { ...spec.branding!.logo!, scale } } };
      expect(drawnModules(withLogo, caches)).toBe(drawnModules(withLogo));
    }
  });

  it('refuses a print too small for its modules alike with the caches, naming the smallest sizeMm', () => {
    const small = { ...spec, sizeMm: 5 };
    const refusal = (caches?: DesignCaches) => {
      try {
        assertPrintable(small, 0.3, caches);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const cached = refusal(new DesignCaches());
    expect(cached).toMatchObject({ code: 'invalid_request' });
    expect(cached).toEqual(refusal());
  });
});
