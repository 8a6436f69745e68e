// Evidence for the shared scan verdict: images the rule lets out WITHOUT their own in-process check, read by ZXing
// (C++), zbar and jsQR.
// Run: npm run measure:shared-verdict [-- payloads-per-design, default 10] (bounded: MEASURE_SECONDS, default 900,
// stops drawing new designs).
//
// Designs: the reader corpus's 220 branded designs (test/helpers/branded-corpus.ts, seed 3131), then each with a logo
// again at the largest scale the logo rule admits for its own URL's version and level (the rule's edge), then the bench
// row's design (level left open). For each design, random URLs of the design URL's length (so they share its version
// and class) are rendered in order on one DesignCaches, as one render thread would: the first of each class are
// checked in process; those the class's shared verdict lets out (scanCounts.shared went up) are the evidence, and those
// that passed their own check are read too, as the baseline the shared ones are compared with.
import { createHash } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { largestLogoScale, logoFits, type Branding } from '../../src/domain/branding.js';
import { DesignCaches } from '../../src/render/branded/design-caches.js';
import { renderTask } from '../../src/render/render-task.js';
import { SHARED_LOGO_SCALE_MAX } from '../../src/render/branded/shared-verdict.js';
import { clearedSquare, logoLeavesSpare } from '../../src/render/logo-level.js';
import { plannedSymbol } from '../../src/render/qr-matrix.js';
import { brandingOf, isBranded, renderSpecOf, type GenerateQrInput } from '../../src/services/render-spec.js';
import { BRANDED_DESIGNS, brandedRequest, type BrandedDesign } from '../helpers/branded-corpus.js';
import { decodeImages, READERS, type ImageFormat } from '../helpers/decode.js';
import { logoPng } from '../helpers/logos.js';

const PER_DESIGN = Number(process.argv[2] ?? 10);
const SECONDS = Number(process.env.MEASURE_SECONDS ?? 900);
const LOGO_ID = 'evidence-logo';
/** Characters a URL's path and query carry: letters, digits and punctuation, so the data (and its segments) vary. */
const URL_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/?=&%+';

interface Sample {
  label: string;
  bytes: Uint8Array;
  request: Record<string, unknown>;
  format: ImageFormat;
  features: Record<string, string>;
}

/** mulberry32: a seeded generator, so a run draws the same URLs again. */
function seeded(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * below);
  };
}

/** A random URL of `length` characters (at least the scheme and a host). */
function randomUrl(random: (below: number) => number, length: number): string {
  const host = `https://${Array.from({ length: 6 }, () => URL_CHARS[random(26)]).join('')}.example/`;
  const tail = Array.from(
    { length: Math.max(1, length - host.length) },
    () => URL_CHARS[random(URL_CHARS.length)],
  ).join('');
  return host + tail;
}

/**
 * The largest logo scale (0.05–0.25, in hundredths) that fits and that the shared-verdict rule admits, at this URL's
 * version and level.
 */
function ruleEdgeScale(url: string, level: 'Q' | 'H'): number | undefined {
  const size = plannedSymbol(url, level)?.size;
  if (size === undefined || largestLogoScale(size, level) === undefined) return undefined;
  let edge: number | undefined;
  for (let hundredths = 5; hundredths <= 40; hundredths++) {
    const scale = hundredths / 100;
    if (
      scale <= SHARED_LOGO_SCALE_MAX &&
      logoFits(size, scale, level) &&
      logoLeavesSpare(size, level, clearedSquare(size, scale))
    )
      edge = scale;
  }
  return edge;
}

function featuresOf(design: BrandedDesign, scale: number, set: string): Record<string, string> {
  return {
    set,
    moduleShape: design.moduleShape,
    finderShape: design.finderShape,
    finderColor: design.finderColor ? 'coloured' : 'as modules',
    logo: scale
      ? `logo ${scale >= 0.25 ? '≥0.25' : scale >= 0.2 ? '0.20–0.24' : scale >= 0.15 ? '0.15–0.19' : '<0.15'}`
      : 'no logo',
    frame: design.frame ? 'frame' : 'no frame',
    format: design.outputFormat,
    size: `${design.size} px`,
    level: design.errorCorrection,
  };
}

interface EvidenceDesign {
  design: BrandedDesign;
  request: (content: string) => Record<string, unknown>;
  features: Record<string, string>;
  payloads?: number;
  /** The payloads to draw when not random URLs of the design URL's length. */
  payload?: (random: (below: number) => number) => string;
}

function designs(): EvidenceDesign[] {
  const corpus = BRANDED_DESIGNS.map((design) => ({
    design,
    request: (content: string) => brandedRequest(design, LOGO_ID, content),
    features: featuresOf(design, design.logoScale, 'corpus'),
  }));
  const edge = BRANDED_DESIGNS.flatMap((design) => {
    const scale = ruleEdgeScale(design.url, design.errorCorrection as 'Q' | 'H');
    if (scale === undefined) return [];
    const atEdge = { ...design, logoScale: scale };
    return [
      {
        design: atEdge,
        request: (content: string) => brandedRequest(atEdge, LOGO_ID, content),
        features: featuresOf(atEdge, scale, 'rule edge'),
      },
    ];
  });
  // The bench row's design: rounded shapes, a red finder, a logo at 0.2, 512 px PNG, the level left to the renderer.
  const benchDesign: BrandedDesign = {
    ...BRANDED_DESIGNS[0]!,
    url: 'https://example.com/brand/12345-678901234',
    outputFormat: 'png',
    size: 512,
  };
  const bench: EvidenceDesign = {
    design: benchDesign,
    // the row that needs the shared verdict: more of its payloads, as bench/scenarios/branded.ts sends them
    payloads: 10 * PER_DESIGN,
    payload: (random) => {
      const n = 1 + random(1_000_000);
      return `https://example.com/brand/${n}-${(n * 2654435761) % 1e9}`;
    },
    request: (content: string) => ({
      type: 'url',
      content,
      outputFormat: 'png',
      moduleShape: 'rounded',
      finderShape: 'rounded',
      finderColor: '#C1121F',
      logo: { id: LOGO_ID, scale: 0.2 },
    }),
    features: {
      set: 'bench row',
      moduleShape: 'rounded',
      finderShape: 'rounded',
      finderColor: 'coloured',
      logo: 'logo 0.20–0.24',
      frame: 'no frame',
      format: 'png',
      size: '512 px',
      level: 'open',
    },
  };
  return [...corpus, ...edge, bench];
}

async function main(): Promise<void> {
  const started = Date.now();
  const png = new Uint8Array(await logoPng());
  const stored = { digest: createHash('sha256').update(png).digest('base64url'), png };
  // The service's own request → spec path (renderSpecOf, brandingOf), with the logo store answering the one logo.
  const deps = { logos: { get: async () => stored } } as unknown as Parameters<typeof brandingOf>[0];
  const caches = new DesignCaches();
  const random = seeded(31);
  const shared: Sample[] = [];
  /** Images that passed their own check: the baseline, read by the same three readers. */
  const checked: Sample[] = [];
  let rendered = 0;
  let refused = 0;
  let designsDrawn = 0;
  for (const { design, request, features, payloads = PER_DESIGN, payload } of designs()) {
    if ((Date.now() - started) / 1000 > SECONDS) break;
    designsDrawn++;
    for (let i = 0; i < payloads; i++) {
      const content = payload ? payload(random) : i === 0 ? design.url : randomUrl(random, design.url.length);
      const body = request(content) as unknown as GenerateQrInput;
      if (!isBranded(body)) continue;
      const spec = renderSpecOf(body, body.content as string);
      const branded = {
        ...spec,
        branding: (await brandingOf(deps, 'evidence', body, spec.darkColor, spec.lightColor)) as Branding,
      };
      const before = { ...caches.scanCounts };
      let result;
      try {
        result = await renderTask(branded, caches);
      } catch {
        result = undefined;
      }
      rendered++;
      if (!result?.ok) {
        refused++;
        continue;
      }
      const sample = {
        label: `${features.set} #${designsDrawn}`,
        bytes: result.bytes,
        request: body as unknown as Record<string, unknown>,
        format: spec.format as ImageFormat,
        features,
      };
      if (caches.scanCounts.shared > before.shared) shared.push(sample);
      else if (caches.scanCounts.decoded > before.decoded) checked.push(sample);
    }
  }
  const renderSeconds = (Date.now() - started) / 1000;
  const shared_ = await readAll(shared);
  const checked_ = await readAll(checked);
  console.log(
    JSON.stringify(
      {
        date: new Date().toISOString(),
        machine: `${cpus().length} × ${cpus()[0]?.model ?? '?'}, load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
        designs: designsDrawn,
        rendered,
        refused,
        checkedInProcess: caches.scanCounts.decoded,
        sharedVerdict: caches.scanCounts.shared,
        shared: {
          images: shared.length,
          misses: shared_.misses.length,
          missesByReader: shared_.byReader,
          byFeature: shared_.byFeature,
        },
        checkedBaseline: {
          images: checked.length,
          misses: checked_.misses.length,
          missesByReader: checked_.byReader,
          byFeature: checked_.byFeature,
        },
        renderSeconds,
        totalSeconds: (Date.now() - started) / 1000,
        sharedMisses: shared_.misses.slice(0, 10).map(({ bytes: _bytes, ...miss }) => miss),
        checkedMisses: checked_.misses.slice(0, 10).map(({ bytes: _bytes, ...miss }) => miss),
      },
      null,
      2,
    ),
  );
}

/** Every sample read by ZXing, zbar and jsQR: the misses (any reader not exact), by reader and by design feature. */
async function readAll(samples: Sample[]) {
  const decoded = await decodeImages(samples.map((s) => ({ bytes: s.bytes, format: s.format })));
  const exact = (i: number, reader: (typeof READERS)[number]) => decoded[i]![reader] === samples[i]!.request.content;
  const misses = samples.flatMap((s, i) =>
    READERS.every((reader) => exact(i, reader)) ? [] : [{ ...s, read: decoded[i] }],
  );
  const byReader = Object.fromEntries(
    READERS.map((reader) => [reader, samples.filter((_, i) => !exact(i, reader)).length]),
  );
  const byFeature: Record<string, Record<string, { images: number; misses: number }>> = {};
  samples.forEach((s, i) => {
    const missed = READERS.some((reader) => !exact(i, reader));
    for (const [feature, value] of Object.entries(s.features)) {
      const row = ((byFeature[feature] ??= {})[value] ??= { images: 0, misses: 0 });
      row.images++;
      if (missed) row.misses++;
    }
  });
  return { misses, byReader, byFeature };
}

await main();
