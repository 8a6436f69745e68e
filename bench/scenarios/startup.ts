// Start-up (rows t-*): `npm start`'s embedded default until /healthz answers, and qrm commands until they exit, each
// against a bare Fastify app's listen, measured turn about in the same run so the machine's load falls on both alike.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE, type BenchScenario } from '../harness.js';
import { createAccountKeys, freePort } from '../processes.js';

const ROUNDS = Number(process.env.BENCH_STARTUP_ROUNDS ?? 7);
const ROOT = join(import.meta.dirname, '..', '..', '..');
/** What `npm start` and `npm run qrm` run (package.json), without npm's own start. */
const RUN_BUILT = join(ROOT, 'scripts', 'run-built.mjs');
/** The entry `npm start` runs, read from package.json so the row always times what the README's command starts. */
const START_ENTRY = /run-built\.mjs (\S+)/.exec(
  (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start,
)![1]!;
const TARGET = 2.5;

/** Milliseconds from spawning `args` until GET /healthz on its port answers 200; the process is stopped after. */
async function untilHealthy(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(NODE, args, {
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const deadline = started + 60_000;
    while (performance.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode} before answering`);
      const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
      if (res?.status === 200) return performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`${args.join(' ')}: /healthz did not answer within 60 s`);
  } finally {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
}

/** Milliseconds from spawning a qrm command until it exits 0. */
async function untilExit(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  const child = spawn(NODE, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  if (code !== 0) throw new Error(`${args.join(' ')} exited with ${code}`);
  return performance.now() - started;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (value: number) => Math.round(value).toLocaleString('en-US');

interface Contender {
  id: string;
  name: string;
  time(env: NodeJS.ProcessEnv): Promise<number>;
}

const CONTENDERS: Contender[] = [
  {
    id: 't-bare',
    name: 'bare Fastify app, `node` until /healthz answers (the baseline)',
    time: (env) => untilHealthy([join(import.meta.dirname, '..', 'servers', 'bare-fastify.js')], env),
  },
  {
    id: 't-api',
    name: '`npm start`, embedded default, until /healthz answers',
    time: (env) => untilHealthy([RUN_BUILT, START_ENTRY], env),
  },
  {
    id: 't-qrm-plans',
    name: '`qrm plans` until it exits',
    time: (env) => untilExit([RUN_BUILT, 'dist/src/entries/qrm.js', 'plans'], env),
  },
  {
    id: 't-qrm-keys',
    name: '`qrm keys list --email E` until it exits',
    time: (env) =>
      untilExit([RUN_BUILT, 'dist/src/entries/qrm.js', 'keys', 'list', '--email', 'startup@example.com'], env),
  },
];

export async function startupTimes(): Promise<{ section: string; apiOverBare: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'qrm-bench-startup-'));
  const env = { ...process.env, QR_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  try {
    createAccountKeys(env, 'startup@example.com', 'pro', 1);
    const times = new Map<string, number[]>(CONTENDERS.map((contender) => [contender.id, []]));
    // One unmeasured start of each first: the page cache holds every file, and the API's code cache (written on the
    // exit of the first start after a build, docs/decisions/api-bundle.md) exists, as on every start but that one.
    for (const contender of CONTENDERS) await contender.time(env);
    for (let round = 0; round < ROUNDS; round++) {
      for (const contender of CONTENDERS) times.get(contender.id)!.push(await contender.time(env));
    }
    const bare = median(times.get('t-bare')!);
    const lines = [
      `Median of ${ROUNDS} rounds, each round starting every contender once, in turn (from \`spawn\` to the ` +
        `answer or the exit), after one unmeasured start of each.`,
      '',
      '| | contender | median (ms) | min (ms) | max (ms) | / bare Fastify | target |',
      '|---|---|---:|---:|---:|---:|---|',
    ];
    for (const contender of CONTENDERS) {
      const all = times.get(contender.id)!;
      const ratio = median(all) / bare;
      const target = contender.id === 't-bare' ? '' : `≤ ${TARGET}: ${ratio <= TARGET ? 'met' : 'NOT met'}`;
      lines.push(
        `| ${contender.id} | ${contender.name} | ${ms(median(all))} | ${ms(Math.min(...all))} | ` +
          `${ms(Math.max(...all))} | ${ratio.toFixed(2)} | ${target} |`,
      );
    }
    return { section: lines.join('\n'), apiOverBare: median(times.get('t-api')!) / bare };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export const startupScenario: BenchScenario = {
  ids: ['startup', 't-api'],
  run: async () => {
    const { section, apiOverBare } = await startupTimes();
    return { sections: { startup: section }, figures: { startupRatio: apiOverBare } };
  },
};
