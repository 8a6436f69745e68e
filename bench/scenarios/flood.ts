// Fairness under a flood: one free account asks for 2048 px WebP with a new colour each time at its full burst,
// while another account's 512 px requests are timed, alone and then beside the flood.
import { spawn } from 'node:child_process';
import type { AutocannonResult } from 'autocannon';
import { bystanderBodies, drive, rotatingKey, rowOf, type Row } from '../load.js';
import { createAccountKeys, type Started } from '../processes.js';
import { DURATION, KEYS_PER_ACCOUNT, WARMUP, type BenchScenario } from '../harness.js';

export interface FloodService {
  server: Started;
  /** The service's environment, for the CLI to add the flooding account. */
  env: NodeJS.ProcessEnv;
  /** Keys of the bystander: a business account (its own burst never limits it here). */
  bystanderKeys: string[];
}

export interface FloodResult {
  rows: Row[];
  /** Bystander p99 beside the flood over its p99 alone (target ≤ 2). */
  p99Ratio: number;
  summary: string;
}

/** The free plan's burst: 10 requests a second per key, over its 5 keys. */
const FLOOD_KEYS = 5;
const FLOOD_RATE = 5 * 10;
const FLOOD_CONNECTIONS = 10;
const BYSTANDER_CONNECTIONS = 10;

function statusCounts(result: AutocannonResult): string {
  const stats = result.statusCodeStats ?? {};
  return Object.entries(stats)
    .map(([status, { count }]) => `${count} × ${status}`)
    .join(', ');
}

/**
 * The flood's load generator runs in a process of its own, so its work never delays the event loop that
 * times the bystander's answers.
 */
export function floodFromAnotherProcess(url: string, keys: string[], seconds: number): Promise<AutocannonResult> {
  const script = `
    import { drive, rotatingKey } from ${JSON.stringify(new URL('../load.js', import.meta.url).href)};
    let colour = 0;
    // A new dark colour each time defeats the image cache; the payload stays one QR code.
    const body = () => {
      colour = (colour + 1) % 0x404040;
      return JSON.stringify({ content: 'https://example.com/flood', type: 'url', outputFormat: 'webp', size: 2048, darkColor: '#' + colour.toString(16).padStart(6, '0') });
    };
    const result = await drive(${JSON.stringify(url)}, rotatingKey(${JSON.stringify(keys)}), body, ${seconds}, { connections: ${FLOOD_CONNECTIONS}, overallRate: ${FLOOD_RATE} });
    process.stdout.write(JSON.stringify(result));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(output) as AutocannonResult)
        : reject(new Error(`flood driver exited with ${code}`)),
    );
  });
}

/**
 * The free account's 500 requests a month last its measured window at 50 a second (BENCH_DURATION ≤ 10 s);
 * a new dark colour each time defeats the image cache, and the payload stays one QR code.
 */
export async function floodScenario(
  service: FloodService,
  seconds: number,
  warmupSeconds: number,
): Promise<FloodResult> {
  const url = `http://127.0.0.1:${service.server.port}/api/v1/QRManager/generate`;
  const floodKeys = createAccountKeys(service.env, 'flood@example.com', 'free', FLOOD_KEYS);
  const bystanderBody = bystanderBodies();
  const bystander = { connections: BYSTANDER_CONNECTIONS };

  if (warmupSeconds > 0) await drive(url, rotatingKey(service.bystanderKeys), bystanderBody, warmupSeconds, bystander);
  const idle = rowOf(
    'h-idle',
    'bystander (business), 512 px PNG/WebP, unique, alone',
    await drive(url, rotatingKey(service.bystanderKeys), bystanderBody, seconds, bystander),
    service.server,
  );
  const [beside, flood] = await Promise.all([
    drive(url, rotatingKey(service.bystanderKeys), bystanderBody, seconds, bystander),
    floodFromAnotherProcess(url, floodKeys, seconds),
  ]);
  const rows = [
    idle,
    rowOf('h-beside', 'bystander beside the flood', beside, service.server),
    rowOf('h-flood', 'flood: free account, 2048 px WebP, new colour each time, 5 keys × 10/s', flood, service.server),
  ];
  const p99Ratio = rows[1]!.p99 / Math.max(idle.p99, 0.001);
  const summary =
    `Flood answers: ${statusCounts(flood) || 'none'}. Bystander beside it: ${statusCounts(beside) || 'none'}. ` +
    `Bystander p99 ${rows[1]!.p99} ms beside the flood against ${idle.p99} ms alone: ${p99Ratio.toFixed(2)}×.`;
  console.log(summary);
  return { rows, p99Ratio, summary };
}

/** The flood rows, on the shared embedded service: one free account flooding, a business one timed. */
export const floodRowsScenario: BenchScenario = {
  ids: ['flood'],
  run: async (context) => {
    const embedded = await context.embedded();
    const flood = await floodScenario(
      { server: embedded.server, env: embedded.env, bystanderKeys: embedded.keys.slice(0, KEYS_PER_ACCOUNT) },
      DURATION,
      WARMUP,
    );
    return { rows: flood.rows, figures: { floodP99Ratio: flood.p99Ratio }, sections: { flood: flood.summary } };
  },
};
