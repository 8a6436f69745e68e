// Micro benchmarks of row h-branded's render: against scenario c's (CPU per render, same unique payloads, one thread),
// and its PNG written two ways.
import type { Branding } from '../src/domain/branding.js';
import { benchLogo } from './bench-logo.js';
import type { RenderSpec } from '../src/domain/render-options.js';
import { DesignCaches } from '../src/render/branded/design-caches.js';
import { designKey } from '../src/domain/branding.js';
import { designLayout } from '../src/render/branded/design-layout.js';
import { writeDeflatedDesignPng, writeDesignPng } from '../src/render/branded/design-png.js';
import { designArt, rasterDesign } from '../src/render/branded/design-raster.js';
import { matrixForDesign } from '../src/render/branded/render-design.js';
import { renderTask } from '../src/render/render-task.js';
import { plainSpec } from '../test/helpers/render-fixtures.js';

const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="240" height="240"><circle cx="120" cy="120" r="110" fill="#e63946"/><rect x="70" y="70" width="100" height="100" fill="#1d3557"/></svg>';

export interface BrandedRenderResult {
  plainMicros: number;
  brandedMicros: number;
  renders: number;
}

/**
 * Process CPU (all threads: sharp's and the decoder's too) per call of `render`, over `count` distinct payloads after a
 * warm-up.
 */
async function cpuMicrosPerRender(count: number, render: (payload: string) => unknown): Promise<number> {
  const payload = (i: number) => `https://example.com/brand/${i}-${(i * 2654435761) % 1e9}`;
  for (let i = 0; i < 100; i++) await render(payload(1_000_000 + i));
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) await render(payload(i + 1));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

/**
 * The bench row's design: rounded modules and finders, a red finder, a cached logo at 0.2 (with `frame`, a caption band
 * too: past 256 colours, RGBA).
 */
async function benchBranding(frame = false): Promise<Branding> {
  const logo = await benchLogo(LOGO_SVG);
  const caption = frame ? { frame: { text: 'SCAN ME', color: '#1d3557ff' } } : {};
  return {
    moduleShape: 'rounded',
    finderShape: 'rounded',
    finderColor: '#c1121fff',
    logo,
    errorCorrectionFixed: false,
    ...caption,
  };
}

/** Row c's request (512 px PNG, margin 4, level M, black on white), with the design when given. */
function benchSpec(payload: string, branding: Branding | undefined): RenderSpec {
  return plainSpec(payload, { branding });
}

/**
 * The bench row's design (rounded modules and finders, a red finder, a cached logo at 0.2, 512 px PNG)
 * and the plain PNG of the same payloads, each through renderTask as a request's render runs. `only`
 * measures one side (under --cpu-prof, to profile the branded path alone).
 */
export async function brandedRenderBench(count = 500, only?: 'plain' | 'branded'): Promise<BrandedRenderResult> {
  const branding = await benchBranding();
  const spec = (payload: string, withBranding: boolean) => benchSpec(payload, withBranding ? branding : undefined);
  const caches = new DesignCaches();
  const run = (withBranding: boolean) => async (payload: string) => {
    const result = await renderTask(spec(payload, withBranding), caches);
    if (!result.ok) throw new Error(`render refused: ${JSON.stringify(result)}`);
  };
  const plainMicros = only === 'branded' ? NaN : await cpuMicrosPerRender(count, run(false));
  const brandedMicros = only === 'plain' ? NaN : await cpuMicrosPerRender(count, run(true));
  return { plainMicros, brandedMicros, renders: count };
}

export function brandedRenderLine(result: BrandedRenderResult): string {
  const { plainMicros, brandedMicros, renders } = result;
  return (
    `plain PNG ${plainMicros.toFixed(0)} µs CPU/render, branded PNG ${brandedMicros.toFixed(0)} µs (` +
    `${(brandedMicros / plainMicros).toFixed(2)}×), ${renders} unique payloads each`
  );
}

// node dist/bench/branded-render.js (BENCH_RENDERS, BENCH_ROUNDS): a few rounds, to see the spread on a busy machine.
if (import.meta.url === `file://${process.argv[1]}`) {
  for (let round = 0; round < Number(process.env.BENCH_ROUNDS ?? 3); round++) {
    console.log(brandedRenderLine(await brandedRenderBench(Number(process.env.BENCH_RENDERS ?? 500))));
  }
}

export interface PngWriterResult {
  /**
   * Drawing the raster, then zlib level 1 over its scanlines (rasterDesign + writeDesignPng): µs of one thread a PNG.
   */
  rasterZlibMicros: number;
  /** The scanlines deflated from how the design is drawn, no raster (writeDeflatedDesignPng). */
  deflatedMicros: number;
  rasterZlibBytes: number;
  deflatedBytes: number;
}

/**
 * The bench row's PNG (512 px, matrix and layout made beforehand; with `frame`, its RGBA sibling) written both ways,
 * turn about in rounds of `count` payloads so drift in the machine falls on both: why design-deflate.ts is written by
 * hand.
 */
export async function pngWriterBench(count = 500, rounds = 4, frame = false): Promise<PngWriterResult> {
  const branding = await benchBranding(frame);
  const design = designKey(branding);
  const caches = new DesignCaches();
  const inputs = Array.from({ length: count }, (_, i) => {
    const spec = benchSpec(`https://example.com/brand/${i}-${(i * 2654435761) % 1e9}`, branding);
    const { matrix } = matrixForDesign(spec, branding, caches);
    return { spec, matrix, layout: designLayout(matrix, 512, 4, branding) };
  });
  const totals = { rasterZlib: 0, deflated: 0, rasterZlibBytes: 0, deflatedBytes: 0 };
  for (let round = 0; round <= rounds; round++) {
    let started = process.hrtime.bigint();
    let bytes = 0;
    for (const { spec, matrix, layout } of inputs) {
      const raster = await rasterDesign(spec, branding, matrix, layout, caches, design);
      bytes += writeDesignPng(raster).length;
      if ('scanlines' in raster) caches.recycleScanlines(raster.scanlines);
    }
    const rasterZlib = Number(process.hrtime.bigint() - started) / 1e3;
    if (round > 0)
      [totals.rasterZlib, totals.rasterZlibBytes] = [totals.rasterZlib + rasterZlib, totals.rasterZlibBytes + bytes];
    started = process.hrtime.bigint();
    bytes = 0;
    for (const { spec, matrix, layout } of inputs)
      bytes += writeDeflatedDesignPng(
        await designArt(spec, branding, design, layout, caches),
        matrix,
        layout,
        512,
      ).length;
    const deflated = Number(process.hrtime.bigint() - started) / 1e3;
    // round 0 warms up
    if (round > 0) [totals.deflated, totals.deflatedBytes] = [totals.deflated + deflated, totals.deflatedBytes + bytes];
  }
  const per = count * rounds;
  return {
    rasterZlibMicros: totals.rasterZlib / per,
    deflatedMicros: totals.deflated / per,
    rasterZlibBytes: totals.rasterZlibBytes / per,
    deflatedBytes: totals.deflatedBytes / per,
  };
}

export function pngWriterLine(result: PngWriterResult): string {
  const { rasterZlibMicros, deflatedMicros, rasterZlibBytes, deflatedBytes } = result;
  return (
    `raster + zlib level 1 ${rasterZlibMicros.toFixed(0)} µs and ${rasterZlibBytes.toFixed(0)} B a PNG, deflated ` +
    `from the design ${deflatedMicros.toFixed(0)} µs (${(deflatedMicros / rasterZlibMicros).toFixed(2)}×) and ` +
    `${deflatedBytes.toFixed(0)} B`
  );
}
