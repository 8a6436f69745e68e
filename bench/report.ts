// The report writer: the rows as a table, the targets as a ratio table, and the sections, written to
// docs/BENCHMARKS.md.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import {
  ACCOUNTS,
  CONNECTIONS,
  DURATION,
  KEYS_PER_ACCOUNT,
  WARMUP,
  type Figures,
  type SectionName,
} from './harness.js';
import type { Row } from './load.js';
import { batchTargets } from './scenarios/batches.js';
import { SIDE_BY_SIDE_SLICES } from './scenarios/generate.js';

export function table(rows: Row[]): string {
  const lines = [
    '| | scenario | req/s | p50 (ms) | p99 (ms) | RSS (MiB) | non-2xx | errors | server CPU µs/req |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.id} | ${r.name} | ${Math.round(r.rps).toLocaleString('en-US')} | ${r.p50} | ${r.p99} | ` +
        `${r.rssMiB.toFixed(0)} | ${r.non2xx} | ${r.errors} | ` +
        `${r.cpuMicros === undefined ? '' : r.cpuMicros.toFixed(0)} |`,
    );
  }
  return lines.join('\n');
}

/** A routing layer's verdict: scenario c with it against without it; above 1 the layer pays for itself. */
function keeps(withIt: Row | undefined, without: Row | undefined, layer: string): string {
  if (!withIt || !without) return '';
  const value = withIt.rps / without.rps;
  const byCpu =
    withIt.cpuMicros && without.cpuMicros
      ? ` (by server CPU: ${(without.cpuMicros / withIt.cpuMicros).toFixed(2)})`
      : '';
  return (
    `| ${withIt.id}/${without.id} | ${value.toFixed(2)}${byCpu} | > 1 keeps ${layer} | ` +
    `${value > 1 ? 'pays' : 'does NOT pay'} |`
  );
}

const seconds = (ms: number | undefined) => (ms === undefined ? undefined : ms / 1000);

export function ratios(rows: Row[], figures: Figures): string {
  const get = (id: string) => rows.find((r) => r.id === id);
  const ratio = (x: string, y: string, target: number, label: string) => {
    const a = get(x);
    const b = get(y);
    if (!a || !b) return `| ${x}/${y} | — | ${label} | not measured |`;
    const value = a.rps / b.rps;
    // The same ratio from server CPU per request: what the machine would give were the server alone on it.
    const byCpu = a.cpuMicros && b.cpuMicros ? ` (by server CPU: ${(b.cpuMicros / a.cpuMicros).toFixed(2)})` : '';
    return `| ${x}/${y} | ${value.toFixed(2)}${byCpu} | ${label} | ${value >= target ? 'met' : 'NOT met'} |`;
  };
  const atMost = (name: string, value: number | undefined, target: number, label: string) =>
    value === undefined
      ? `| ${name} | — | ${label} | not measured |`
      : `| ${name} | ${value.toFixed(2)} | ${label} | ${value <= target ? 'met' : 'NOT met'} |`;
  const c = get('c');
  return [
    '| ratio | value | target | |',
    '|---|---:|---|---|',
    ratio('c', 'e', 0.7, '≥ 0.7: auth + metering cost at most 30% of the best-possible render'),
    ratio('f-webp', 'c', 0.9, '≥ 0.9: WebP at PNG speed'),
    atMost('WebP bytes / PNG bytes', figures.webpOverPng, 0.8, '≤ 0.8 for the same code'),
    atMost(
      'bystander p99 beside the flood / alone',
      figures.floodP99Ratio,
      2,
      '≤ 2: one account cannot take the instance',
    ),
    atMost(
      'the same, alternating windows (h-windows)',
      figures.floodWindowsP99Ratio,
      2,
      '≤ 2: median of three idle / flood windows',
    ),
    atMost(
      '16 MP noise decode, s (d-noise)',
      seconds(figures.decodeNoiseMs),
      5,
      '≤ 5 s: one image never holds a decode thread long',
    ),
    atMost(
      'small decode beside the noise flood, s (d-bystander)',
      seconds(figures.decodeBesideFloodMs),
      1,
      "≤ 1 s: another account's images never wait",
    ),
    atMost(
      'u-stalled p99 / u-idle p99',
      figures.stalledP99Ratio,
      2,
      '≤ 2: stalled uploads cannot slow another account',
    ),
    atMost(
      'RSS after stalled uploads and a major GC / idle',
      figures.stalledRssRatio,
      1.2,
      '≤ 1.2: an aborted upload holds no memory',
    ),
    atMost(
      'start-up to /healthz / bare Fastify listen (t-api)',
      figures.startupRatio,
      2.5,
      '≤ 2.5: the embedded default starts nearly as fast as Fastify alone',
    ),
    ratio('d', 'b', 0.5, '≥ 0.5: a repeated code runs at half the HTTP ceiling or better'),
    ratio('f-pdf', 'c', 0.5, '≥ 0.5: a PDF at a physical size at half PNG speed or better'),
    ratio(
      's-signed',
      'b',
      0.6,
      '≥ 0.6: a signed image URL revalidated (304, metered) at 0.6 of the HTTP ceiling or better',
    ),
    ratio(
      'h-branded',
      'c',
      1 / 3,
      '≥ 0.33: a branded PNG with a cached logo costs at most 3× a plain PNG (every payload new: checked until ' +
        'its design class shares a verdict)',
    ),
    ratio('h-branded-repeat', 'c', 1 / 3, "≥ 0.33: the same with payloads repeated (each image's verdict cached)"),
    ratio('c', 'a', 20, '≥ 20: twenty times what a user would write instead'),
    ratio(
      'r',
      'b',
      0.5,
      '≥ 0.5: the dynamic-code redirect, counting on, at half the HTTP ceiling or better (embedded)',
    ),
    ratio('r-redis', 'b', 0.5, '≥ 0.5: the same in Redis mode'),
    ratio(
      'r-rules',
      'b',
      0.5,
      '≥ 0.5: the redirect of a code with three rules and a UTM, at half the HTTP ceiling or better (embedded)',
    ),
    ratio('r-rules-redis', 'b', 0.5, '≥ 0.5: the same in Redis mode'),
    ratio(
      'r-split',
      'b',
      0.5,
      '≥ 0.5: the redirect of a code with three rules, a UTM and a 50/50 split, at half the HTTP ceiling or ' +
        'better (embedded)',
    ),
    ratio('r-split-redis', 'b', 0.5, '≥ 0.5: the same in Redis mode'),
    ...batchTargets(get),
    c
      ? `| p99/p50 of c | ${(c.p99 / Math.max(c.p50, 0.001)).toFixed(1)} | ≤ 4 | ` +
        `${c.p99 <= 4 * c.p50 ? 'met' : 'NOT met'} |`
      : '',
    keeps(c, get('c-pool'), 'small plain renders on the event loop rather than one pool task each'),
    keeps(
      get('c-thread'),
      get('c-inline'),
      'small plain renders on a free thread rather than on the event loop (RENDER_SMALL_ON_POOL=true; off by default)',
    ),
    keeps(
      get('h-branded-thread'),
      get('h-branded-inline'),
      'small branded renders on a free thread rather than on the event loop (the default)',
    ),
  ].join('\n');
}

export interface Results {
  rows: Row[];
  figures: Figures;
  sections: Partial<Record<SectionName, string>>;
}

export function report(results: Results, startedAt: Date): string {
  const { rows, figures, sections } = results;
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD']).stdout?.toString().trim() || 'unknown';
  const hardware =
    `${cpus().length} × ` + `${cpus()[0]?.model ?? 'unknown CPU'}, ` + `${Math.round(totalmem() / 2 ** 30)} GiB RAM`;
  const machine = `${hardware}, ${platform()} ${release()}, Node ${process.version}`;
  return `# Benchmarks

Produced by \`npm run bench\` (bench/run.ts) on ${startedAt.toISOString()}, commit ${commit}.

Machine: ${machine}. The load generator (autocannon, ${CONNECTIONS} connections, POST JSON, ~40-character URLs,
512 px PNG unless stated) runs on the same machine as the server, so the server has at most the other core to itself.
Each scenario: ${WARMUP} s warm-up, then ${DURATION} s measured. All servers are started by the bench itself, one at a time,
except rows e and c: their servers run together and the load goes to them turn about, in ${SIDE_BY_SIDE_SLICES} slices each
(${DURATION} s each in all; p50 and p99 are the median slice's), so drift in the machine's speed falls on both sides of c/e alike.

## Load

${table(rows)}

${ratios(rows, figures)}

Notes: r and r-redis are \`GET /r/{slug}\` of one dynamic code (302, no key, never metered), each scan counted after its
answer (SQLite group commit embedded; one Redis script call in Redis mode); their non-2xx column counts answers other than 302.
a, b and e answer on \`POST /generate\` with no key; c, d, f and g go through the real
\`POST /api/v1/QRManager/generate\` with a business-plan key (rotating over ${ACCOUNTS * KEYS_PER_ACCOUNT} keys of ${ACCOUNTS} accounts), the API-key
check, monthly metering in the store, logging and metrics. "Repeated content" answers from the image cache but is still
authenticated and metered.

## Where the time goes (scenario c, profiled)

${sections.profile ?? ''}

The load generator shares the machine's two cores with the server, so "idle" is time the server waited for
requests, not spare capacity of the machine.

## Image size and correctness

${sections.sizes ?? ''}

## Fairness under a flood (one free account, 2048 px WebP, new colour each time)

${sections.flood ?? 'Flood skipped (BENCH_ONLY).'}

${sections.floodWindows ?? ''}

## Decoding on a budget (a 16-megapixel noise JPEG, and another account's small decode beside a flood of them)

${sections.decode ?? 'Decode rows skipped (BENCH_ONLY).'}

## Memory over a soak

${sections.soak ?? ''}

## Start-up (rows t-*)

${sections.startup ?? 'Start-up rows skipped (BENCH_ONLY).'}

## Capacity: Redis per request, and a cluster's spread (rows k-node, k-cluster)

${sections.capacity ?? 'Capacity rows skipped (BENCH_ONLY).'}

The model built on these figures: [scaling.md](scaling.md).

## Render path (micro, one thread, same run)

${sections.micro ?? ''}
`;
}

export function writeReport(results: Results, startedAt: Date): void {
  writeFileSync(join(import.meta.dirname, '..', '..', 'docs', 'BENCHMARKS.md'), report(results, startedAt));
  console.log('\nwritten to docs/BENCHMARKS.md');
}
