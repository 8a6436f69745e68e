// Where the time goes: a CPU profile of the service under scenario-c load, summed by category of code.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { body, DURATION, GENERATE_PATH, LOAD, withService, type BenchScenario } from '../harness.js';
import { drive, rotatingKey } from '../load.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** First matching rule names the category of a sampled frame; order matters (specific before general). */
const CATEGORIES: Array<[string, (fn: string, url: string) => boolean]> = [
  ['idle (event loop waiting)', (fn) => fn === '(idle)'],
  ['garbage collection', (fn) => fn === '(garbage collector)'],
  ['render: QR matrix (qr)', (_fn, url) => url.includes('node_modules/qr/') || url.includes('render/qr-matrix')],
  [
    'render: PNG (scanlines + deflate)',
    (fn, url) => url.includes('render/png-writer') || url === 'node:zlib' || fn === 'processChunkSync',
  ],
  [
    'render: other (layout, WebP, SVG, routing)',
    (_fn, url) => url.includes('/src/render/') || url.includes('adapters/render/'),
  ],
  ['metering + key lookup (SQLite)', (_fn, url) => url.includes('better-sqlite3') || url.includes('adapters/sqlite/')],
  [
    'logging (pino)',
    (_fn, url) => url.includes('node_modules/pino') || url.includes('sonic-boom') || url.includes('fast-redact'),
  ],
  ['metrics (prom-client)', (_fn, url) => url.includes('prom-client')],
  ['validation (zod)', (_fn, url) => url.includes('node_modules/zod')],
  [
    'HTTP + routing (fastify, node:http, sockets)',
    (fn, url) =>
      url.includes('node_modules/fastify') ||
      url.includes('node_modules/@fastify') ||
      url.includes('find-my-way') ||
      url.includes('light-my-request') ||
      url.startsWith('node:_http') ||
      url.startsWith('node:net') ||
      url.startsWith('node:internal/stream') ||
      fn === 'writev' ||
      fn === 'writeUtf8String' ||
      url.includes('secure-json-parse'),
  ],
  ['hashing (key, ETag, fingerprint)', (_fn, url) => url.startsWith('node:internal/crypto')],
  ['our services, domain and plugins', (_fn, url) => url.includes('/dist/src/')],
];

export function summariseProfile(profileDir: string): string {
  const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) return 'No profile was written.';
  const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, number>();
  let all = 0;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!.callFrame;
    const delta = profile.timeDeltas[i] ?? 0;
    const category =
      CATEGORIES.find(([, test]) => test(frame.functionName, frame.url))?.[0] ?? 'other (V8, node internals)';
    totals.set(category, (totals.get(category) ?? 0) + delta);
    all += delta;
  });
  const lines = ['| where the main thread spends its time (self time) | share |', '|---|---:|'];
  for (const [category, micros] of [...totals].sort((a, b) => b[1] - a[1]))
    lines.push(`| ${category} | ${((micros / all) * 100).toFixed(1)}% |`);
  return lines.join('\n');
}

/** Scenario c once more under the V8 profiler (slower while profiled; only the shares matter). */
export const profileScenario: BenchScenario = {
  ids: ['profile'],
  run: async () => {
    const profileDir = mkdtempSync(join(tmpdir(), 'qrm-bench-profile-'));
    // The profile is written when the service exits, which withService waits for.
    await withService(
      {},
      (profiled) =>
        drive(
          `http://127.0.0.1:${profiled.server.port}${GENERATE_PATH}`,
          rotatingKey(profiled.keys),
          body('png', true),
          DURATION,
          LOAD,
        ),
      ['--cpu-prof', `--cpu-prof-dir=${profileDir}`],
    );
    try {
      return { sections: { profile: summariseProfile(profileDir) } };
    } finally {
      // BENCH_KEEP_PROFILE=1 leaves the .cpuprofile for a closer look (Chrome DevTools, speedscope).
      if (process.env.BENCH_KEEP_PROFILE) console.log(`profile kept in ${profileDir}`);
      else rmSync(profileDir, { recursive: true, force: true });
    }
  },
};
