// The micro benchmarks of the render path (one thread, in process), and the branded render against a plain one.
import { brandedRenderBench, brandedRenderLine, pngWriterBench, pngWriterLine } from '../branded-render.js';
import type { BenchScenario } from '../harness.js';
import { renderPathBench, renderPathTable } from '../render-path.js';
import { shapeCostBench, shapeCostTable } from '../shape-cost.js';

export const microScenario: BenchScenario = {
  ids: ['micro'],
  run: async () => {
    console.log('render path micro benchmarks…');
    const table = renderPathTable(await renderPathBench(1));
    const branded =
      `Row h-branded's render against scenario c's (CPU per render, in process): ` +
      `${brandedRenderLine(await brandedRenderBench(500))}.`;
    const writers = [
      `Row h-branded's PNG written two ways (one thread, turn about, the same 500 payloads): ` +
        `${pngWriterLine(await pngWriterBench())}.`,
      `The same design with a caption band (RGBA: past 256 colours): ` +
        `${pngWriterLine(await pngWriterBench(500, 4, true))}.`,
    ].join('\n\n');
    const shapes =
      `What each shape costs (256 px PNG, new payloads, in process; bench/shape-cost.ts):\n\n` +
      `${shapeCostTable(await shapeCostBench())}`;
    return { sections: { micro: `${table}\n\n${branded}\n\n${writers}\n\n${shapes}` } };
  },
};
