// The branded designs of the reader corpus (test/branded/reader-corpus.test.ts), shared with the shared-verdict
// evidence (test/measure/shared-verdict.ts).
import fc from 'fast-check';

/** Colour pairs the contrast rule admits, from black on white to brand colours and a dark background. */
export const PALETTES = [
  { darkColor: '#000000', lightColor: '#FFFFFF' },
  { darkColor: '#1D3557', lightColor: '#FFF8E7' },
  { darkColor: '#7B2CBF', lightColor: '#F1FAEE' },
  { darkColor: '#003049', lightColor: '#FCBF49' },
  { darkColor: '#264653', lightColor: '#E9F5DB' },
];
// each at least 3:1 against every light colour above
export const FINDER_COLOURS = ['#9B1B30', '#1D3557', '#0B5345', undefined];

/**
 * Campaign tails a printed URL carries: from none to ~90 characters, so versions reach 10–12 and 256 px modules 3 px.
 */
const TAIL = 'utm_source=poster&utm_medium=print&utm_campaign=spring-menu-2026&table=12&lang=en&ref=a4-flyer';

export const brandedDesign = fc.record({
  url: fc
    .tuple(fc.webUrl({ withQueryParameters: true }), fc.integer({ min: 0, max: TAIL.length }))
    .map(([url, tail]) => (tail === 0 ? url : `${url}${url.includes('?') ? '&' : '?'}${TAIL.slice(0, tail)}`)),
  outputFormat: fc.constantFrom('png', 'webp', 'svg'),
  size: fc.constantFrom(256, 400, 512, 800, 1024),
  errorCorrection: fc.constantFrom('Q', 'H'),
  palette: fc.constantFrom(...PALETTES),
  moduleShape: fc.constantFrom('square', 'rounded', 'dots'),
  finderShape: fc.constantFrom('square', 'rounded', 'circle'),
  finderColor: fc.constantFrom(...FINDER_COLOURS),
  logoScale: fc.constantFrom(0, 0.1, 0.15, 0.2, 0.25),
  frame: fc.constantFrom(undefined, 'SCAN ME', 'Menu'),
});
/** A design as sampled; logoScale widened to any scale (the evidence also draws logos at the rule's edge). */
export type BrandedDesign = Omit<ReturnType<(typeof brandedDesign)['generate']>['value'], 'logoScale'> & {
  logoScale: number;
};

/** The corpus's 220 branded designs (seed 3131): URLs with and without campaign tails, 256–1024 px. */
export const BRANDED_DESIGNS: BrandedDesign[] = fc.sample(brandedDesign, { numRuns: 220, seed: 3131 });

/** The generate request body of a design, for `content` (its own URL unless given) and the account's logo id. */
export function brandedRequest(design: BrandedDesign, logoId: string, content = design.url): Record<string, unknown> {
  return {
    type: 'url',
    content,
    outputFormat: design.outputFormat,
    size: design.size,
    errorCorrection: design.errorCorrection,
    ...design.palette,
    moduleShape: design.moduleShape,
    finderShape: design.finderShape,
    ...(design.finderColor ? { finderColor: design.finderColor } : {}),
    ...(design.logoScale ? { logo: { id: logoId, scale: design.logoScale } } : {}),
    ...(design.frame ? { frame: { text: design.frame } } : {}),
  };
}
