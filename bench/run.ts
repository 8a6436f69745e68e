// npm run bench: our service against its baselines, side by side in one run, written to docs/BENCHMARKS.md.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, platform, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import QRCode from 'qrcode';
import { brandedScenario } from './branded.js';
import { brandedRenderBench, brandedRenderLine } from './branded-render.js';
import { summariseProfile } from './profile.js';
import { redirectScenario } from './redirect.js';
import { batchScenarios, batchTargets } from './batches.js';
import { floodScenario } from './flood.js';
import { renderPathBench, renderPathTable } from './render-path.js';
import { drive, rotatingKey, rowOf, type Row } from './load.js';
import { cpuSeconds, createAccountKeys, freePort, rssMiB, startProcess, type Started } from './processes.js';
import { hostileNeighbour } from './scenarios/hostile-neighbour.js';
import { sideBySide, type Side } from './side-by-side.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const SOAK = Number(process.env.BENCH_SOAK_SECONDS ?? 300);
const CONNECTIONS = 50;
/** BENCH_ONLY=c,f-webp,flood runs only those rows (ids, or: micro, sizes, soak, profile, redis, flood; i-batch, i-idle, i-during run together, and c-inline with c-thread) and writes no report. */
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((id) => id.trim())) : undefined;
const wanted = (...ids: string[]) => !ONLY || ids.some((id) => ONLY.has(id));
const ACCOUNTS = 10; // unique codes spread over accounts so a long soak stays inside each account's QR quota
// Keys spread over accounts' key slots so the per-key burst (business: 1,000 requests a second) is never what is measured:
// 50 keys allow 50,000 requests a second, far past what this machine serves.
const KEYS_PER_ACCOUNT = 5;
const NODE = process.execPath;

let sequence = 0;
const uniqueUrl = () => `https://example.com/item/${++sequence}-${(sequence * 2654435761) % 1e9}`;

function body(outputFormat: string, unique: boolean): () => string {
  return () => JSON.stringify({ content: unique ? uniqueUrl() : 'https://example.com/repeated', type: 'url', outputFormat });
}

const LOAD = { connections: CONNECTIONS };

async function scenario(
  id: string,
  name: string,
  server: Started,
  path: string,
  headersFor: () => Record<string, string>,
  makeBody: () => string,
): Promise<Row> {
  const url = `http://127.0.0.1:${server.port}${path}`;
  if (WARMUP > 0) await drive(url, headersFor, makeBody, WARMUP, LOAD);
  const cpuBefore = cpuSeconds(server.child.pid);
  const result = await drive(url, headersFor, makeBody, DURATION, LOAD);
  return rowOf(id, name, result, server, cpuSeconds(server.child.pid) - cpuBefore);
}

const E_NAME = 'best-possible inline render (qr matrix, 1-bit PNG, zlib 1), no auth or metering';
const C_NAME = 'ours, PNG, unique content, key check + metering (embedded SQLite)';
/** Slices of rows e and c, turn about: DURATION seconds each in all. */
const SIDE_BY_SIDE_SLICES = 5;

/** Rows e and c, measured turn about on the baseline server and our service. */
async function bestBesideOurs(service: Service, path: string, headersFor: () => Record<string, string>): Promise<Row[]> {
  const best = await baseline('best-inline.js');
  try {
    return await sideBySide(
      [
        { id: 'e', name: E_NAME, server: best, url: `http://127.0.0.1:${best.port}/generate`, headersFor: () => ({}), makeBody: body('png', true) },
        { id: 'c', name: C_NAME, server: service.server, url: `http://127.0.0.1:${service.server.port}${path}`, headersFor, makeBody: body('png', true) },
      ],
      DURATION,
      WARMUP,
      SIDE_BY_SIDE_SLICES,
      LOAD,
    );
  } finally {
    await best.stop();
  }
}

/** Scenario c on two services turn about: small renders on a free thread (the default) and on the event loop. */
async function threadBesideInline(): Promise<Row[]> {
  const services = await Promise.all([ourService({ RENDER_SMALL_ON_POOL: 'true' }), ourService({ RENDER_SMALL_ON_POOL: 'false' })]);
  const side = (id: string, name: string, service: Service): Side => ({
    id,
    name,
    server: service.server,
    url: `http://127.0.0.1:${service.server.port}/api/v1/QRManager/generate`,
    headersFor: rotatingKey(service.keys),
    makeBody: body('png', true),
  });
  try {
    return await sideBySide(
      [
        side('c-thread', 'ours, PNG, unique content, small renders grouped onto a free thread (the default)', services[0]),
        side('c-inline', 'ours, PNG, unique content, small renders drawn on the event loop (RENDER_SMALL_ON_POOL=false)', services[1]),
      ],
      DURATION,
      WARMUP,
      SIDE_BY_SIDE_SLICES,
      LOAD,
    );
  } finally {
    for (const service of services) {
      await service.server.stop();
      rmSync(service.dataDir, { recursive: true, force: true });
    }
  }
}

async function baseline(script: string): Promise<Started> {
  const port = await freePort();
  return startProcess(NODE, [join(import.meta.dirname, 'servers', script)], { PORT: String(port) }, port);
}

export interface Service {
  server: Started;
  keys: string[];
  dataDir: string;
  env: NodeJS.ProcessEnv;
}

async function ourService(extraEnv: Record<string, string>, nodeArgs: string[] = []): Promise<Service> {
  const dataDir = mkdtempSync(join(tmpdir(), 'qrm-bench-'));
  const env = { ...process.env, QR_DATA_DIR: dataDir, LOG_LEVEL: 'info', ...extraEnv };
  const keys: string[] = [];
  for (let i = 0; i < ACCOUNTS; i++) keys.push(...createAccountKeys(env, `bench${i}@example.com`, 'business', KEYS_PER_ACCOUNT));
  const port = await freePort();
  const server = await startProcess(
    NODE,
    [...nodeArgs, join(import.meta.dirname, '..', 'src', 'entries', 'api.js')],
    { ...env, PORT: String(port), HOST: '127.0.0.1' },
    port,
  );
  return { server, keys, dataDir, env };
}

async function startRedis(): Promise<{ url: string; stop(): Promise<void> } | undefined> {
  if (spawnSync('redis-server', ['--version']).status !== 0) return undefined;
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'qrm-bench-redis-'));
  const redis = await startProcess('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {}, port);
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      await redis.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function decodes(bytes: Buffer, format: string, expected: string): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'qrm-bench-decode-'));
  try {
    let png = join(dir, `image.${format}`);
    writeFileSync(png, bytes);
    if (format === 'webp') spawnSync('dwebp', ['-quiet', png, '-o', (png = join(dir, 'image.png'))]);
    if (format === 'svg') spawnSync('rsvg-convert', ['-w', '512', png, '-o', (png = join(dir, 'image.png'))]);
    const zbar = spawnSync('zbarimg', ['-q', '--nodbus', '--raw', '-Sbinary', png]).stdout?.toString();
    const zxing = spawnSync('ZXingReader', ['-format', 'QRCode', '-bytes', png]).stdout?.toString();
    return zbar === expected && zxing === expected;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function imageSizes(service: Service): Promise<{ report: string; webpOverPng: number }> {
  const content = 'https://example.com/menu?table=12';
  const naive = await QRCode.toBuffer(content, { width: 512, errorCorrectionLevel: 'M' });
  const lines = ['| image (512 px, ECC M, same code) | bytes | vs qrcode.toBuffer | lossless | zbar + ZXing decode |', '|---|---:|---:|---|---|'];
  lines.push(`| qrcode.toBuffer PNG (baseline) | ${naive.length} | 100% | yes | ${decodes(naive, 'png', content) ? 'yes' : 'NO'} |`);
  const sizes: Record<string, number> = {};
  for (const format of ['png', 'webp', 'svg']) {
    const res = await fetch(`http://127.0.0.1:${service.server.port}/api/v1/QRManager/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': service.keys[0]! },
      body: JSON.stringify({ content, type: 'url', outputFormat: format }),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    sizes[format] = bytes.length;
    lines.push(
      `| ours ${format.toUpperCase()} | ${bytes.length} | ${((bytes.length / naive.length) * 100).toFixed(0)}% | yes | ${decodes(bytes, format, content) ? 'yes' : 'NO'} |`,
    );
  }
  const webpOverPng = sizes.webp! / sizes.png!;
  lines.push('', `WebP is ${webpOverPng.toFixed(2)}× our PNG's bytes, ${(100 - webpOverPng * 100).toFixed(0)}% smaller (the spec says "up to 30% smaller").`);
  return { report: lines.join('\n'), webpOverPng };
}

async function soak(service: Service): Promise<string> {
  if (SOAK <= 0) return 'Soak skipped (BENCH_SOAK_SECONDS=0).';
  const url = `http://127.0.0.1:${service.server.port}/api/v1/QRManager/generate`;
  const pid = service.server.child.pid;
  const samples: Array<[number, number]> = [];
  const started = Date.now();
  const sampler = setInterval(() => samples.push([Math.round((Date.now() - started) / 1000), rssMiB(pid)]), 10_000);
  samples.push([0, rssMiB(pid)]);
  const result = await drive(url, rotatingKey(service.keys), body('png', true), SOAK, LOAD);
  clearInterval(sampler);
  samples.push([SOAK, rssMiB(pid)]);
  const first = samples[0]![1];
  const last = samples.at(-1)![1];
  const peak = Math.max(...samples.map(([, rss]) => rss));
  const mid = samples.reduce((best, sample) => (Math.abs(sample[0] - SOAK / 2) < Math.abs(best[0] - SOAK / 2) ? sample : best))[1];
  console.log(`soak: ${Math.round(result.requests.average)} req/s over ${SOAK}s, RSS ${first.toFixed(0)} → ${last.toFixed(0)} MiB (peak ${peak.toFixed(0)})`);
  return [
    `Scenario c (unique PNG, full auth + metering) for ${SOAK} s: ${Math.round(result.requests.average).toLocaleString('en-US')} req/s, ` +
      `p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ${result.non2xx} non-2xx, ${result.errors + result.timeouts} errors.`,
    '',
    `| t (s) | ${samples.map(([t]) => t).join(' | ')} |`,
    `|---|${samples.map(() => '---:').join('|')}|`,
    `| RSS (MiB) | ${samples.map(([, rss]) => rss.toFixed(0)).join(' | ')} |`,
    '',
    `RSS at start ${first.toFixed(0)} MiB, at end ${last.toFixed(0)} MiB (${(((last - first) / first) * 100).toFixed(1)}%), peak ${peak.toFixed(0)} MiB. ` +
      `Over the second half, once the image cache (IMAGE_CACHE_MB, default 64) is full: ${mid.toFixed(0)} → ${last.toFixed(0)} MiB ` +
      `(${(((last - mid) / mid) * 100).toFixed(1)}%). Growth in the first half is the bounded cache filling, not a leak.`,
  ].join('\n');
}

function table(rows: Row[]): string {
  const lines = [
    '| | scenario | req/s | p50 (ms) | p99 (ms) | RSS (MiB) | non-2xx | errors | server CPU µs/req |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.id} | ${r.name} | ${Math.round(r.rps).toLocaleString('en-US')} | ${r.p50} | ${r.p99} | ${r.rssMiB.toFixed(0)} | ${r.non2xx} | ${r.errors} | ${r.cpuMicros === undefined ? '' : r.cpuMicros.toFixed(0)} |`,
    );
  }
  return lines.join('\n');
}

interface Figures {
  webpOverPng?: number;
  floodP99Ratio?: number;
}

/** A routing layer's verdict: scenario c with it against without it; above 1 the layer pays for itself. */
function keeps(withIt: Row | undefined, without: Row | undefined, layer: string): string {
  if (!withIt || !without) return '';
  const value = withIt.rps / without.rps;
  const byCpu = withIt.cpuMicros && without.cpuMicros ? ` (by server CPU: ${(without.cpuMicros / withIt.cpuMicros).toFixed(2)})` : '';
  return `| ${withIt.id}/${without.id} | ${value.toFixed(2)}${byCpu} | > 1 keeps ${layer} | ${value > 1 ? 'pays' : 'does NOT pay'} |`;
}

function ratios(rows: Row[], figures: Figures): string {
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
    value === undefined ? `| ${name} | — | ${label} | not measured |` : `| ${name} | ${value.toFixed(2)} | ${label} | ${value <= target ? 'met' : 'NOT met'} |`;
  const c = get('c');
  return [
    '| ratio | value | target | |',
    '|---|---:|---|---|',
    ratio('c', 'e', 0.7, '≥ 0.7: auth + metering cost at most 30% of the best-possible render'),
    ratio('f-webp', 'c', 0.9, '≥ 0.9: WebP at PNG speed'),
    atMost('WebP bytes / PNG bytes', figures.webpOverPng, 0.8, '≤ 0.8 for the same code'),
    atMost('bystander p99 beside the flood / alone', figures.floodP99Ratio, 2, '≤ 2: one account cannot take the instance'),
    ratio('d', 'b', 0.5, '≥ 0.5: a repeated code runs at half the HTTP ceiling or better'),
    ratio('h-branded', 'c', 1 / 3, '≥ 0.33: a branded PNG with a cached logo costs at most 3× a plain PNG'),
    ratio('c', 'a', 20, '≥ 20: twenty times what a user would write instead'),
    ratio('r', 'b', 0.5, '≥ 0.5: the dynamic-code redirect, counting on, at half the HTTP ceiling or better (embedded)'),
    ratio('r-redis', 'b', 0.5, '≥ 0.5: the same in Redis mode'),
    ...batchTargets(get),
    c ? `| p99/p50 of c | ${(c.p99 / Math.max(c.p50, 0.001)).toFixed(1)} | ≤ 4 | ${c.p99 <= 4 * c.p50 ? 'met' : 'NOT met'} |` : '',
    keeps(c, get('c-pool'), 'small renders grouped per turn rather than one pool task each'),
    keeps(get('c-thread'), get('c-inline'), 'small renders on a free thread rather than on the event loop (RENDER_SMALL_ON_POOL)'),
  ].join('\n');
}

/** Scenario c once more under the V8 profiler (slower while profiled; only the shares matter). */
async function profiledScenarioC(): Promise<string> {
  const profileDir = mkdtempSync(join(tmpdir(), 'qrm-bench-profile-'));
  const profiled = await ourService({}, ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]);
  try {
    await drive(`http://127.0.0.1:${profiled.server.port}/api/v1/QRManager/generate`, rotatingKey(profiled.keys), body('png', true), DURATION, LOAD);
  } finally {
    await profiled.server.stop(); // the profile is written on exit
    rmSync(profiled.dataDir, { recursive: true, force: true });
  }
  try {
    return summariseProfile(profileDir);
  } finally {
    // BENCH_KEEP_PROFILE=1 leaves the .cpuprofile for a closer look (Chrome DevTools, speedscope).
    if (process.env.BENCH_KEEP_PROFILE) console.log(`profile kept in ${profileDir}`);
    else rmSync(profileDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const date = new Date().toISOString();
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD']).stdout?.toString().trim() || 'unknown';

  const figures: Figures = {};
  // c/e is a target: when both rows run, they run turn about (bench/side-by-side.ts), not a minute apart.
  const eBesideC = wanted('e') && wanted('c');
  let micro = '';
  if (wanted('micro')) {
    console.log('render path micro benchmarks…');
    micro = renderPathTable(await renderPathBench(1));
    micro += `\n\nRow h-branded's render against scenario c's (CPU per render, in process): ${brandedRenderLine(await brandedRenderBench(500))}.`;
  }

  for (const [id, name, script] of [
    ['a', 'naive Fastify + qrcode.toBuffer inline (what a user would write)', 'naive-qrcode.js'],
    ['b', 'HTTP ceiling: the same Fastify answering a fixed PNG', 'fixed-png.js'],
    ['e', E_NAME, 'best-inline.js'],
  ] as const) {
    if (!wanted(id) || (id === 'e' && eBesideC)) continue;
    const server = await baseline(script);
    try {
      rows.push(await scenario(id, name, server, '/generate', () => ({}), body('png', id !== 'b')));
    } finally {
      await server.stop();
    }
  }

  // Scenario r: the dynamic-code redirect with counting on, embedded and in Redis mode (bench/redirect.ts).
  const redirect = { warmupSeconds: WARMUP, seconds: DURATION, connections: CONNECTIONS };
  if (wanted('r')) {
    const service = await ourService({});
    try {
      rows.push(await redirectScenario('r', 'ours, dynamic-code redirect (302) with scan counting, embedded SQLite', service, redirect, 'stats'));
    } finally {
      await service.server.stop();
      rmSync(service.dataDir, { recursive: true, force: true });
    }
  }
  const redirectRedis = wanted('r-redis') ? await startRedis() : undefined;
  if (redirectRedis) {
    const service = await ourService({ REDIS_URL: redirectRedis.url });
    try {
      rows.push(await redirectScenario('r-redis', 'ours, dynamic-code redirect (302) with scan counting, Redis mode', service, redirect, 'metric'));
    } finally {
      await service.server.stop();
      rmSync(service.dataDir, { recursive: true, force: true });
      await redirectRedis.stop();
    }
  }
  const embedded = await ourService({});
  // The flood row (bench/flood.ts) runs on this same service: one free account flooding, a business one timed.
  let sizes = '';
  let soakReport = '';
  let floodReport = 'Flood skipped (BENCH_ONLY).';
  try {
    const headers = rotatingKey(embedded.keys);
    const path = '/api/v1/QRManager/generate';
    const ours = [
      ['c', C_NAME, body('png', true)],
      ['d', 'ours, PNG, repeated content (embedded SQLite)', body('png', false)],
      ['f-webp', 'ours, WebP, unique content', body('webp', true)],
      ['f-svg', 'ours, SVG, unique content', body('svg', true)],
    ] as const;
    if (eBesideC) rows.push(...(await bestBesideOurs(embedded, path, headers)));
    for (const [id, name, makeBody] of ours) {
      if (wanted(id) && !(id === 'c' && eBesideC)) rows.push(await scenario(id, name, embedded.server, path, headers, makeBody));
    }
    if (wanted('h-branded'))
      rows.push(await brandedScenario(embedded, (id, name, headersFor, makeBody) => scenario(id, name, embedded.server, path, headersFor, makeBody)));
    if (wanted('sizes')) {
      const measured = await imageSizes(embedded);
      sizes = measured.report;
      figures.webpOverPng = measured.webpOverPng;
    }
    if (wanted('flood')) {
      const flood = await floodScenario(
        { server: embedded.server, env: embedded.env, bystanderKeys: embedded.keys.slice(0, KEYS_PER_ACCOUNT) },
        DURATION,
        WARMUP,
      );
      rows.push(...flood.rows);
      figures.floodP99Ratio = flood.p99Ratio;
      floodReport = flood.summary;
    }
    if (wanted('soak')) soakReport = await soak(embedded);
  } finally {
    await embedded.server.stop();
    rmSync(embedded.dataDir, { recursive: true, force: true });
  }

  if (wanted('i-batch', 'i-idle', 'i-during'))
    rows.push(...(await batchScenarios({ ourService, scenario, rotatingKey, body, rssMiB, cleanup: (dir) => rmSync(dir, { recursive: true, force: true }) })));

  // Scenario c with every render its own pool task: the grouping of small renders, measured in this run.
  if (wanted('c-pool')) {
    const pooled = await ourService({ RENDER_INLINE_MAX_PIXELS: '0' });
    try {
      const title = 'ours, PNG, unique content, every render its own Piscina task';
      rows.push(await scenario('c-pool', title, pooled.server, '/api/v1/QRManager/generate', rotatingKey(pooled.keys), body('png', true)));
    } finally {
      await pooled.server.stop();
      rmSync(pooled.dataDir, { recursive: true, force: true });
    }
  }

  // Small renders on a free thread against on the event loop: close enough that only turn about tells them apart.
  if (wanted('c-inline')) rows.push(...(await threadBesideInline()));

  const profile = wanted('profile') ? await profiledScenarioC() : '';

  const redis = wanted('redis', 'g-c', 'g-d') ? await startRedis() : undefined;
  if (redis) {
    const service = await ourService({ REDIS_URL: redis.url });
    try {
      const headers = rotatingKey(service.keys);
      const path = '/api/v1/QRManager/generate';
      rows.push(await scenario('g-c', 'ours, PNG, unique content, Redis mode', service.server, path, headers, body('png', true)));
      rows.push(await scenario('g-d', 'ours, PNG, repeated content, Redis mode', service.server, path, headers, body('png', false)));
    } finally {
      await service.server.stop();
      rmSync(service.dataDir, { recursive: true, force: true });
      await redis.stop();
    }
  }

  if (wanted('n-idle', 'n-hostile')) rows.push(...(await hostileNeighbour()));

  const hardware = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM`;
  const machine = `${hardware}, ${platform()} ${release()}, Node ${process.version}`;
  const report = `# Benchmarks

Produced by \`npm run bench\` (bench/run.ts) on ${date}, commit ${commit}.

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

${profile}

The load generator shares the machine's two cores with the server, so "idle" is time the server waited for
requests, not spare capacity of the machine.

## Image size and correctness

${sizes}

## Fairness under a flood (one free account, 2048 px WebP, new colour each time)

${floodReport}

## Memory over a soak

${soakReport}

## Render path (micro, one thread, same run)

${micro}
`;
  if (ONLY) {
    console.log(`\n${table(rows)}\n\n${ratios(rows, figures)}\n\n${profile}\n\nBENCH_ONLY run: docs/BENCHMARKS.md left as it was.`);
    return;
  }
  writeFileSync(join(import.meta.dirname, '..', '..', 'docs', 'BENCHMARKS.md'), report);
  console.log('\nwritten to docs/BENCHMARKS.md');
}

await main();
