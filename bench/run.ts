// npm run bench: every scenario in bench/scenarios/, in the order below, against its baselines; written to
// docs/BENCHMARKS.md.
// A new row is a file in bench/scenarios/ exporting a BenchScenario (bench/harness.ts), added to SCENARIOS, with its
// target in bench/report.ts.
import { ONLY, ourService, stopService, wanted, type BenchScenario, type Service } from './harness.js';
import { ratios, table, writeReport, type Results } from './report.js';
import { baselineScenario } from './scenarios/baselines.js';
import { baselineMatrixScenario } from './scenarios/baseline-matrix.js';
import { batchCpuScenario } from './scenarios/batch-cpu.js';
import { batchesScenario } from './scenarios/batches.js';
import { brandedRowScenario } from './scenarios/branded.js';
import { capacityScenario } from './scenarios/capacity.js';
import { floodRowsScenario } from './scenarios/flood.js';
import { floodWindowsScenario } from './scenarios/flood-windows.js';
import { decodeBudgetScenario } from './scenarios/decode-budget.js';
import { eBesideC, generateScenario } from './scenarios/generate.js';
import { csvFloodScenario } from './scenarios/csv-flood.js';
import { hostileNeighbourScenario } from './scenarios/hostile-neighbour.js';
import { microScenario } from './scenarios/micro.js';
import { profileScenario } from './scenarios/profile.js';
import { REDIRECT_SCENARIOS } from './scenarios/redirect.js';
import { printScenario } from './scenarios/print.js';
import { redisGenerateScenario } from './scenarios/redis-generate.js';
import { everyRenderOnPoolScenario, threadBesideInlineScenario } from './scenarios/render-routing.js';
import { brandedThreadBesideInlineScenario } from './scenarios/branded-routing.js';
import { signedUrlScenario } from './scenarios/signed-urls.js';
import { sizesScenario } from './scenarios/sizes.js';
import { soakScenario } from './scenarios/soak.js';
import { stalledUploadsScenario } from './scenarios/stalled-uploads.js';
import { startupScenario } from './scenarios/startup.js';

/**
 * The report's row order. The scenarios from generate to soak share one embedded service, stopped after the last of
 * them.
 */
const SCENARIOS: BenchScenario[] = [
  microScenario,
  startupScenario,
  baselineScenario('a'),
  baselineScenario('b'),
  baselineScenario('e', eBesideC),
  baselineMatrixScenario,
  ...REDIRECT_SCENARIOS,
  generateScenario,
  printScenario,
  brandedRowScenario,
  sizesScenario,
  floodRowsScenario,
  soakScenario,
  batchesScenario,
  everyRenderOnPoolScenario,
  threadBesideInlineScenario,
  brandedThreadBesideInlineScenario,
  profileScenario,
  redisGenerateScenario,
  capacityScenario,
  signedUrlScenario,
  hostileNeighbourScenario,
  floodWindowsScenario,
  decodeBudgetScenario,
  csvFloodScenario,
  stalledUploadsScenario,
  batchCpuScenario,
];

async function main(): Promise<void> {
  const startedAt = new Date();
  const results: Results = { rows: [], figures: {}, sections: {} };
  let embedded: Promise<Service> | undefined;
  const context = { embedded: () => (embedded ??= ourService({})) };
  try {
    for (const scenario of SCENARIOS) {
      const only = ONLY;
      const named = only !== undefined && scenario.ids.some((id) => only.has(id));
      if (scenario.optIn ? !named : !wanted(...scenario.ids)) continue;
      const outcome = await scenario.run(context);
      results.rows.push(...(outcome.rows ?? []));
      Object.assign(results.figures, outcome.figures);
      Object.assign(results.sections, outcome.sections);
      // The shared embedded service is done with once the scenarios that use it have run.
      if (scenario === soakScenario && embedded) {
        await stopService(await embedded);
        embedded = undefined;
      }
    }
  } finally {
    if (embedded) await stopService(await embedded);
  }
  if (ONLY) {
    console.log(
      `\n${table(results.rows)}\n\n${ratios(results.rows, results.figures)}\n\n` +
        `${Object.values(results.sections).join('\n\n')}\n\n` +
        'BENCH_ONLY run: docs/BENCHMARKS.md left as it was.',
    );
    return;
  }
  writeReport(results, startedAt);
}

await main();
