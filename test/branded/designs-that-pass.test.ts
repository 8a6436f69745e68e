// Designs every styling library draws and phones read are drawn so that they pass: the designs the scan check used to
// refuse, each answered and read.
import { describe, expect, it } from 'vitest';
import { generate, useTestApp } from '../helpers/app.js';
import { decodeImages, readByAll, type ImageFormat } from '../helpers/decode.js';
import { useCallerWithLogo } from '../helpers/logos.js';
import { readSymbols } from '../helpers/symbol-read.js';

const t = useTestApp({ env: { RENDER_THREADS: '2' } });
const caller = useCallerWithLogo(t, 'business');

/** URLs long enough that a 256 px image has modules 3–4 px wide (versions 8–12), where shaped modules were refused. */
const URLS = [
  'https://example.com/menu/spring-collection/tasting?table=12&lang=en&ref=poster-a4',
  'https://shop.example.org/products/organic-coffee-beans/ethiopia-yirgacheffe?variant=500g&utm_source=qr&utm_medium=print&utm_campaign=autumn',
];

/** The designs the issue names as refused, in its own words. */
const DESIGNS: Array<{ name: string; request: Record<string, unknown> }> = [
  {
    name: 'ECC H, rounded modules, square finders, a logo at 0.15, 256 px, a caption',
    request: {
      errorCorrection: 'H',
      moduleShape: 'rounded',
      finderShape: 'square',
      logo: 0.15,
      size: 256,
      frame: 'SCAN ME',
      outputFormat: 'png',
    },
  },
  {
    name: 'ECC Q, rounded modules, square finders, no logo, 256 px, a caption',
    request: {
      errorCorrection: 'Q',
      moduleShape: 'rounded',
      finderShape: 'square',
      size: 256,
      frame: 'SCAN ME',
      outputFormat: 'png',
    },
  },
  {
    name: 'ECC Q, rounded modules and finders, no logo, 256 px WebP',
    request: { errorCorrection: 'Q', moduleShape: 'rounded', finderShape: 'rounded', size: 256, outputFormat: 'webp' },
  },
  {
    name: 'ECC H, rounded modules, square finders, logo 0.25, 512 px',
    request: { errorCorrection: 'H', moduleShape: 'rounded', logo: 0.25, size: 512, outputFormat: 'png' },
  },
  {
    name: 'ECC H, rounded modules, square finders, logo 0.25, 800 px',
    request: { errorCorrection: 'H', moduleShape: 'rounded', logo: 0.25, size: 800, outputFormat: 'png' },
  },
  {
    name: 'ECC Q, dots, logo 0.2, 400 px',
    request: { errorCorrection: 'Q', moduleShape: 'dots', logo: 0.2, size: 400, outputFormat: 'png' },
  },
  {
    name: 'ECC H, dots, rounded finders, logo 0.25, 400 px',
    request: {
      errorCorrection: 'H',
      moduleShape: 'dots',
      finderShape: 'rounded',
      logo: 0.25,
      size: 400,
      outputFormat: 'png',
    },
  },
  {
    name: 'ECC Q, dots, circle finders, no logo, 256 px SVG',
    request: { errorCorrection: 'Q', moduleShape: 'dots', finderShape: 'circle', size: 256, outputFormat: 'svg' },
  },
];

function body(design: Record<string, unknown>, content: string): Record<string, unknown> {
  const { logo, frame, ...rest } = design;
  return {
    type: 'url',
    content,
    darkColor: '#1D3557',
    lightColor: '#FFF8E7',
    ...rest,
    ...(logo ? { logo: { id: caller.logoId, scale: logo } } : {}),
    ...(frame ? { frame: { text: frame } } : {}),
  };
}

describe('designs the scan check used to refuse are drawn so that they pass', () => {
  it('answers each with an image that ZXing, zbar and jsQR read exactly', async () => {
    const cases = DESIGNS.flatMap(({ name, request }) =>
      URLS.map((content) => ({ name, content, request: body(request, content) })),
    );
    const answers = await Promise.all(cases.map((c) => generate(t.app, caller.key, c.request)));
    const refused = answers.flatMap((res, i) =>
      res.statusCode === 200 ? [] : [{ name: cases[i]!.name, content: cases[i]!.content, problem: res.json() }],
    );
    expect(refused).toEqual([]);
    const decoded = await decodeImages(
      answers.map((res, i) => ({ bytes: res.rawPayload, format: cases[i]!.request.outputFormat as ImageFormat })),
    );
    expect(decoded.map((d, i) => ({ name: cases[i]!.name, ...d }))).toEqual(
      cases.map((c) => ({ name: c.name, ...readByAll(c.content) })),
    );
    // The headers name the symbol drawn, as jsQR (version) and ZXing (level) read it; never below the level asked.
    const read = await readSymbols(
      answers.map((res, i) => ({ bytes: res.rawPayload, format: cases[i]!.request.outputFormat as ImageFormat })),
    );
    const named = answers.map((res) => ({
      version: Number(res.headers['qr-version']),
      errorCorrection: res.headers['qr-error-correction'],
    }));
    expect(named).toEqual(read);
    const rank = (level: unknown) => 'LMQH'.indexOf(String(level));
    expect(named.filter((n, i) => rank(n.errorCorrection) < rank(cases[i]!.request.errorCorrection))).toEqual([]);
  }, 120_000);
});

/** Level M asked for, left open (not fixed by the caller): a logo this large needs more correction than M has. */
const OPEN_LEVEL = { type: 'url', content: URLS[0], moduleShape: 'rounded', size: 512, outputFormat: 'png' };

describe('a design whose level is left open', () => {
  it('is drawn at the level its logo needs, and the headers say which', async () => {
    const res = await generate(t.app, caller.key, { ...OPEN_LEVEL, logo: { id: caller.logoId, scale: 0.25 } });
    expect(res.statusCode).toBe(200);
    const [read] = await readSymbols([{ bytes: res.rawPayload, format: 'png' }]);
    expect(res.headers['qr-error-correction']).toBe(read!.errorCorrection);
    expect(Number(res.headers['qr-version'])).toBe(read!.version);
    expect(['Q', 'H']).toContain(read!.errorCorrection);
    expect(await decodeImages([{ bytes: res.rawPayload, format: 'png' }])).toEqual([readByAll(URLS[0]!)]);
  }, 60_000);
});
