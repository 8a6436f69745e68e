// The bench harness: run settings, the services a scenario measures (started and always stopped here), one measured
// row, and the scenario shape.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AutocannonResult } from 'autocannon';
import { drive, rowOf, type Row } from './load.js';
import { cpuSeconds, createAccountKeys, freePort, startProcess, type Started } from './processes.js';

export const DURATION = Number(process.env.BENCH_DURATION ?? 10);
export const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
export const SOAK = Number(process.env.BENCH_SOAK_SECONDS ?? 300);
export const CONNECTIONS = 50;
export const LOAD = { connections: CONNECTIONS };
export const ACCOUNTS = 10; // unique codes spread over accounts so a long soak stays inside each account's QR quota
// Keys spread over accounts' key slots so the per-key burst (business: 1,000 requests a second) is never what is
// measured:
// 50 keys allow 50,000 requests a second, far past what this machine serves.
export const KEYS_PER_ACCOUNT = 5;
export const NODE = process.execPath;
export const GENERATE_PATH = '/api/v1/QRManager/generate';

/**
 * BENCH_ONLY=c,f-webp,flood runs only those rows (ids, or: micro, sizes, soak, profile, redis, flood, startup; i-batch,
 * i-idle, i-during run together, and c-inline with c-thread) and writes no report. Opt-in pairs, run turn about only
 * when named: e-qr (with e) and h-branded-inline (with h-branded-thread).
 */
export const ONLY = process.env.BENCH_ONLY
  ? new Set(process.env.BENCH_ONLY.split(',').map((id) => id.trim()))
  : undefined;

export function wanted(...ids: readonly string[]): boolean {
  return !ONLY || ids.some((id) => ONLY.has(id));
}

let sequence = 0;
const uniqueUrl = () => `https://example.com/item/${++sequence}-${(sequence * 2654435761) % 1e9}`;

/** A generate body: unique content (a new code each request) or the same code every time. */
export function body(outputFormat: string, unique: boolean): () => string {
  return () =>
    JSON.stringify({ content: unique ? uniqueUrl() : 'https://example.com/repeated', type: 'url', outputFormat });
}

/** Our built service, started on a data directory of its own, with business-plan keys over ACCOUNTS accounts. */
export interface Service {
  server: Started;
  keys: string[];
  dataDir: string;
  env: NodeJS.ProcessEnv;
}

/** Our API process (src/entries/api.js) on a free loopback port, with `env` and Node's `nodeArgs`. */
export async function startApi(env: NodeJS.ProcessEnv, nodeArgs: string[] = []): Promise<Started> {
  const port = await freePort();
  const entry = join(import.meta.dirname, '..', 'src', 'entries', 'api.js');
  return startProcess(NODE, [...nodeArgs, entry], { ...env, PORT: String(port), HOST: '127.0.0.1' }, port);
}

export async function ourService(extraEnv: Record<string, string>, nodeArgs: string[] = []): Promise<Service> {
  const dataDir = mkdtempSync(join(tmpdir(), 'qrm-bench-'));
  const env = { ...process.env, QR_DATA_DIR: dataDir, LOG_LEVEL: 'info', ...extraEnv };
  const keys: string[] = [];
  for (let i = 0; i < ACCOUNTS; i++)
    keys.push(...createAccountKeys(env, `bench${i}@example.com`, 'business', KEYS_PER_ACCOUNT));
  const server = await startApi(env, nodeArgs);
  return { server, keys, dataDir, env };
}

export async function stopService(service: Service): Promise<void> {
  await service.server.stop();
  rmSync(service.dataDir, { recursive: true, force: true });
}

/** Runs `use` on a service of its own, stopped and removed afterwards whatever happens. */
export async function withService<T>(
  extraEnv: Record<string, string>,
  use: (service: Service) => Promise<T>,
  nodeArgs: string[] = [],
): Promise<T> {
  const service = await ourService(extraEnv, nodeArgs);
  try {
    return await use(service);
  } finally {
    await stopService(service);
  }
}

/** A business account (the neighbour) and a free one (the intruder), one key each, on a server of their own. */
export interface NeighbourService {
  server: Started;
  neighbourKey: string;
  intruderKey: string;
}

/**
 * The neighbour's steady client: `seconds` of PNGs of 64 URLs in turn, as neighbourKey, at 400 requests a second on
 * 10 connections (under the business key's burst of 1,000 a second, so idle and loaded windows serve the same work).
 */
export function neighbourDriver(service: NeighbourService): (seconds: number) => Promise<AutocannonResult> {
  const bodies = Array.from({ length: 64 }, (_, i) =>
    JSON.stringify({ content: `https://example.com/neighbour/${i}`, type: 'url', outputFormat: 'png' }),
  );
  let next = 0;
  return (seconds) =>
    drive(
      `http://127.0.0.1:${service.server.port}${GENERATE_PATH}`,
      () => ({ 'x-api-key': service.neighbourKey }),
      () => bodies[next++ % bodies.length]!,
      seconds,
      { connections: 10, overallRate: 400 },
    );
}

/**
 * Runs `use` on a NeighbourService (LOG_LEVEL warn), stopped and removed afterwards whatever happens: the
 * noisy-neighbour rows.
 */
export async function withNeighbours<T>(
  tag: string,
  use: (service: NeighbourService) => Promise<T>,
  options: { inspectPort?: number } = {},
): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), `qrm-bench-${tag}-`));
  const env = { ...process.env, QR_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  try {
    const [neighbourKey] = createAccountKeys(env, 'neighbour@example.com', 'business', 1);
    const [intruderKey] = createAccountKeys(env, 'intruder@example.com', 'free', 1);
    // The server's inspector on loopback, for a scenario that asks the server for a major GC (collect-garbage.ts).
    const inspect = options.inspectPort === undefined ? [] : [`--inspect=127.0.0.1:${options.inspectPort}`];
    const server = await startApi(env, inspect);
    try {
      return await use({ server, neighbourKey: neighbourKey!, intruderKey: intruderKey! });
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * A baseline server from bench/servers/ (`naive-qrcode.js`, `fixed-png.js`, `best-inline.js`), answering POST
 * /generate.
 */
export async function withBaseline<T>(script: string, use: (server: Started) => Promise<T>): Promise<T> {
  const port = await freePort();
  const server = await startProcess(NODE, [join(import.meta.dirname, 'servers', script)], { PORT: String(port) }, port);
  try {
    return await use(server);
  } finally {
    await server.stop();
  }
}

/**
 * A redis-server of its own for the rows in Redis mode; `use` is skipped (no rows) when redis-server is not installed.
 */
export async function withRedis<T>(use: (url: string) => Promise<T>): Promise<T | undefined> {
  if (spawnSync('redis-server', ['--version']).status !== 0) return undefined;
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'qrm-bench-redis-'));
  const redis = await startProcess(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    {},
    port,
  );
  try {
    return await use(`redis://127.0.0.1:${port}`);
  } finally {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One row: WARMUP seconds of load, then DURATION seconds measured, with the server's CPU over the measured part. */
export async function measureRow(
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

/** Figures the ratio table reads besides the rows. */
export interface Figures {
  webpOverPng?: number;
  floodP99Ratio?: number;
  /** The same in alternating idle / flood windows, median of three (row h-windows). */
  floodWindowsP99Ratio?: number;
  /**
   * Median answer time of a 16-megapixel noise JPEG, and the slowest small decode of another account beside a flood of
   * them (ms).
   */
  decodeNoiseMs?: number;
  decodeBesideFloodMs?: number;
  /**
   * Stalled uploads (rows u-idle, u-stalled): the bystander's p99 under them over idle, and RSS after them over idle.
   */
  stalledP99Ratio?: number;
  stalledRssRatio?: number;
  /** `npm start` until /healthz answers over a bare Fastify app's listen, medians of the same run (row t-api). */
  startupRatio?: number;
}

/** The report's prose sections a scenario may fill (bench/report.ts places them). */
export type SectionName =
  'profile' | 'sizes' | 'flood' | 'floodWindows' | 'decode' | 'soak' | 'micro' | 'capacity' | 'startup';

export interface Outcome {
  rows?: Row[];
  figures?: Figures;
  sections?: Partial<Record<SectionName, string>>;
}

export interface BenchContext {
  /** The embedded service several scenarios share (started on first use, stopped by the run). */
  embedded(): Promise<Service>;
}

/**
 * One scenario (a file in bench/scenarios/): the ids it answers to in BENCH_ONLY, and how it runs.
 * `optIn` scenarios run only when BENCH_ONLY names them, never in the full `npm run bench`.
 */
export interface BenchScenario {
  ids: readonly string[];
  optIn?: boolean;
  run(context: BenchContext): Promise<Outcome>;
}
