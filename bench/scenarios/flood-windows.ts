// Fairness under a flood, in alternating windows: a bystander's 512 px p99 alone and beside a free account's 2048 px
// WebP flood, three times each.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AutocannonResult } from 'autocannon';
import { bystanderBodies, drive, measuredRow, rotatingKey, type Row } from '../load.js';
import { createAccountKeys, type Started } from '../processes.js';
import { KEYS_PER_ACCOUNT, startApi, WARMUP, type BenchScenario } from '../harness.js';
import { floodFromAnotherProcess } from './flood.js';

/** Seconds a window: a free account's 500 requests a month last one flood window at its burst of 50 a second. */
const WINDOW = Number(process.env.BENCH_FLOOD_WINDOW ?? 8);
const ROUNDS = 3;
/** The bystander: an ordinary busy client at a steady rate, so its p99 shows the flood's effect, not its own queue. */
const BYSTANDER_CONNECTIONS = 10;
const BYSTANDER_RATE = 100;
/** The target the issue sets: the bystander's p99 beside the flood within 2× its p99 alone. */
const MAX_RATIO = 2;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The window whose p99 is the median of the three, as the row. */
function medianWindow(windows: AutocannonResult[]): AutocannonResult {
  const p99 = median(windows.map((window) => window.latency.p99));
  return windows.find((window) => window.latency.p99 === p99)!;
}

export interface FloodWindowsResult {
  rows: Row[];
  ratio: number;
  summary: string;
}

/** Its own server (embedded, default threads): a business bystander, and a new free account for each flood window. */
export async function floodWindows(): Promise<FloodWindowsResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'qrm-bench-windows-'));
  const env = { ...process.env, QR_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  let server: Started | undefined;
  try {
    const bystanderKeys = createAccountKeys(env, 'bystander@example.com', 'business', KEYS_PER_ACCOUNT);
    const floodKeys = Array.from({ length: ROUNDS }, (_, i) =>
      createAccountKeys(env, `flood${i}@example.com`, 'free', 5),
    );
    server = await startApi(env);
    const { port } = server;
    const url = `http://127.0.0.1:${port}/api/v1/QRManager/generate`;
    const bystanderBody = bystanderBodies();
    const bystander = (seconds: number) =>
      drive(url, rotatingKey(bystanderKeys), bystanderBody, seconds, {
        connections: BYSTANDER_CONNECTIONS,
        overallRate: BYSTANDER_RATE,
      });
    if (WARMUP > 0) await bystander(WARMUP);
    const idle: AutocannonResult[] = [];
    const beside: AutocannonResult[] = [];
    const floods: AutocannonResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      idle.push(await bystander(WINDOW));
      const [during, flood] = await Promise.all([
        bystander(WINDOW),
        floodFromAnotherProcess(url, floodKeys[round]!, WINDOW),
      ]);
      beside.push(during);
      floods.push(flood);
    }
    const ratio = median(beside.map((w) => w.latency.p99)) / Math.max(median(idle.map((w) => w.latency.p99)), 1);
    const pairs = idle.map((w, i) => `${w.latency.p99} → ${beside[i]!.latency.p99} ms`).join(', ');
    const floodAnswers = floods
      .map((flood) =>
        Object.entries(flood.statusCodeStats ?? {})
          .map(([status, { count }]) => `${count} × ${status}`)
          .join(', '),
      )
      .join(' / ');
    const verdict = ratio <= MAX_RATIO ? 'met' : 'NOT met';
    const summary =
      `Alternating windows of ${WINDOW} s (idle, flood) × ${ROUNDS}, bystander at ${BYSTANDER_RATE}/s: p99 ` +
      `alone → beside the flood ${pairs}; ` +
      `median ${ratio.toFixed(2)}×, target ≤ ${MAX_RATIO}× — ${verdict}. Flood answers per window: ${floodAnswers}.`;
    console.log(summary);
    const rows = [
      measuredRow(
        'h-win-idle',
        `bystander 512 px at ${BYSTANDER_RATE}/s alone (median of ${ROUNDS} windows)`,
        medianWindow(idle),
        server,
      ),
      measuredRow(
        'h-win-flood',
        `the same beside a free account's 2048 px WebP flood, 5 keys × 10/s (median of ${ROUNDS}): p99 ` +
          `${ratio.toFixed(2)}× alone — ${verdict}`,
        medianWindow(beside),
        server,
      ),
    ];
    return { rows, ratio, summary };
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export const floodWindowsScenario: BenchScenario = {
  ids: ['h-windows'],
  run: async () => {
    const result = await floodWindows();
    return {
      rows: result.rows,
      figures: { floodWindowsP99Ratio: result.ratio },
      sections: { floodWindows: result.summary },
    };
  },
};
