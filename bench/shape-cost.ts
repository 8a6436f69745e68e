// What each module and finder shape costs: CPU per render beside a plain PNG, and the level the drawing ends at.
import type { Branding } from '../src/domain/branding.js';
import { benchLogo } from './bench-logo.js';
import type { ErrorCorrectionLevel, RenderSpec } from '../src/domain/render-options.js';
import { DesignCaches } from '../src/render/branded/design-caches.js';
import { renderTask } from '../src/render/render-task.js';

const MODULE_SHAPES = ['square', 'rounded', 'dots'] as const;
const FINDER_SHAPES = ['square', 'rounded', 'circle'] as const;
const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="240" height="240"><circle cx="120" cy="120" r="110" fill="#e63946"/></svg>';

export interface ShapeCost {
  design: string;
  /** Process CPU per render (the scan check's decoders included), µs. */
  micros: number;
  /** Renders answered, by the level drawn (asked: M, left open). */
  levels: Partial<Record<ErrorCorrectionLevel, number>>;
  refused: number;
}

/** Printed-campaign URLs of ~70 characters: version 5 at M, 4.9 px modules at 200 px. */
const payload = (round: number, i: number) =>
  `https://example.com/menu/${round}-${i}-${(i * 2654435761) % 1e9}?utm_source=poster`;

/**
 * Each design renders `count` unique payloads a round, the designs turn about in every round (so drift falls on all),
 * at 256 px PNG, level M left open, brand colours; a plain PNG of the same payloads is the baseline.
 */
export async function shapeCostBench(count = 60, rounds = 3): Promise<{ plainMicros: number; shapes: ShapeCost[] }> {
  const logo = await benchLogo(LOGO_SVG);
  const designs: Array<{ name: string; branding: Branding | undefined }> = [{ name: 'plain', branding: undefined }];
  for (const moduleShape of MODULE_SHAPES)
    for (const finderShape of FINDER_SHAPES)
      for (const withLogo of [false, true])
        designs.push({
          name: `${moduleShape} / ${finderShape}${withLogo ? ' / logo 0.2' : ''}`,
          branding: {
            moduleShape,
            finderShape,
            finderColor: '#9b1b30ff',
            errorCorrectionFixed: false,
            ...(withLogo ? { logo } : {}),
          },
        });
  const totals = designs.map(() => ({ micros: 0, levels: {} as ShapeCost['levels'], refused: 0 }));
  for (let round = 0; round <= rounds; round++) {
    for (const [d, design] of designs.entries()) {
      // each round's payloads are new to every design: the check runs as for new codes
      const caches = new DesignCaches();
      const before = process.cpuUsage();
      for (let i = 0; i < count; i++) {
        const spec: RenderSpec = {
          payload: payload(round, i),
          format: 'png',
          size: 256,
          margin: 4,
          errorCorrection: 'M',
          darkColor: '#1d3557ff',
          lightColor: '#fff8e7ff',
          branding: design.branding,
        };
        const result = await renderTask(spec, caches);
        if (round === 0) continue; // warm-up
        if (result.ok)
          totals[d]!.levels[result.symbol.errorCorrection] =
            (totals[d]!.levels[result.symbol.errorCorrection] ?? 0) + 1;
        else totals[d]!.refused++;
      }
      const used = process.cpuUsage(before);
      if (round > 0) totals[d]!.micros += used.user + used.system;
    }
  }
  const renders = count * rounds;
  const shapes = designs.map((design, d) => ({
    design: design.name,
    ...totals[d]!,
    micros: totals[d]!.micros / renders,
  }));
  return { plainMicros: shapes[0]!.micros, shapes: shapes.slice(1) };
}

export function shapeCostTable({ plainMicros, shapes }: Awaited<ReturnType<typeof shapeCostBench>>): string {
  const levels = (s: ShapeCost) => (['M', 'Q', 'H'] as const).map((l) => `${l} ${s.levels[l] ?? 0}`).join(', ');
  const lines = shapes.map(
    (s) =>
      `| ${s.design} | ${s.micros.toFixed(0)} | ${(s.micros / plainMicros).toFixed(1)}× | ${levels(s)} | ` +
      `${s.refused} |`,
  );
  return [
    `Plain PNG of the same payloads: ${plainMicros.toFixed(0)} µs CPU a render.`,
    '',
    '| modules / finders | µs CPU a render | × plain | drawn at (asked M, left open) | refused |',
    '|---|---|---|---|---|',
    ...lines,
  ].join('\n');
}

// node dist/bench/shape-cost.js (BENCH_RENDERS, BENCH_ROUNDS)
if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(
    shapeCostTable(
      await shapeCostBench(Number(process.env.BENCH_RENDERS ?? 60), Number(process.env.BENCH_ROUNDS ?? 3)),
    ),
  );
}
