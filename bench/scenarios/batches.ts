// Batch benchmark rows: items/s of one large batch (no HTTP per item), and synchronous PNG p99 idle against during a
// running batch.

import type { Row } from '../load.js';
import type { Service } from '../harness.js';
import { rotatingKey } from '../load.js';
import { rssMiB } from '../processes.js';
import { rmSync } from 'node:fs';
import { body, measureRow, ourService, type BenchScenario } from '../harness.js';

export interface BatchBenchHelpers {
  ourService(env: Record<string, string>): Promise<Service>;
  scenario(
    id: string,
    name: string,
    server: Service['server'],
    path: string,
    headers: () => Record<string, string>,
    body: () => string,
  ): Promise<Row>;
  rotatingKey(keys: string[]): () => Record<string, string>;
  body(format: string, unique: boolean): () => string;
  rssMiB(pid: number | undefined): number;
  cleanup(dir: string): void;
}

const ITEMS = Number(process.env.BENCH_BATCH_ITEMS ?? 10_000);
/**
 * BENCH_BATCH_ENV='{"BATCH_CONCURRENCY":"2"}': extra environment for the service of these rows, to compare settings.
 */
const GENERATE = '/api/v1/QRManager/generate';
const BATCHES = '/api/v1/QRManager/batches';

let batchSeq = 0;

/** A batch of `items` unique PNGs on the service at `base`; answers its id. */
export async function startBatch(base: string, key: string, items: number): Promise<string> {
  const tag = `${Date.now()}-${++batchSeq}`;
  const res = await fetch(`${base}${BATCHES}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({
      items: Array.from({ length: items }, (_, i) => ({
        content: `https://example.com/batch/${tag}/${i}`,
        type: 'url',
        outputFormat: 'png',
      })),
    }),
  });
  if (res.status !== 202) throw new Error(`batch refused: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

async function batchState(
  base: string,
  key: string,
  id: string,
): Promise<{ status: string; succeeded: number; failed: number }> {
  return (await (await fetch(`${base}${BATCHES}/${id}`, { headers: { 'x-api-key': key } })).json()) as {
    status: string;
    succeeded: number;
    failed: number;
  };
}

/** Polls the batch until it is neither queued nor running, or `timeoutMs` passed; answers its last state. */
export async function untilFinished(
  base: string,
  key: string,
  id: string,
  timeoutMs: number,
): Promise<{ status: string; succeeded: number; failed: number }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await batchState(base, key, id);
    if (!['queued', 'running'].includes(state.status) || Date.now() > deadline) return state;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * i-batch: one batch of ITEMS unique PNGs (512 px), timed from acceptance to completion; i-idle and i-during: the same
 * sync load without and with a batch running.
 */
export async function batchScenarios(h: BatchBenchHelpers): Promise<Row[]> {
  const rows: Row[] = [];
  const service = await h.ourService(process.env.BENCH_BATCH_ENV ? JSON.parse(process.env.BENCH_BATCH_ENV) : {});
  const base = `http://127.0.0.1:${service.server.port}`;
  const key = service.keys[0]!;
  try {
    const started = performance.now();
    const id = await startBatch(base, key, ITEMS);
    console.log(`i-batch: accepted after ${((performance.now() - started) / 1000).toFixed(2)} s`);
    const done = await untilFinished(base, key, id, 30 * 60_000);
    const seconds = (performance.now() - started) / 1000;
    const itemsPerSecond = done.succeeded / seconds;
    console.log(
      `i-batch: ${done.succeeded} items in ${seconds.toFixed(1)} s = ${Math.round(itemsPerSecond)} items/s (` +
        `${done.status}, ${done.failed} failed)`,
    );
    rows.push({
      id: 'i-batch',
      name: `ours, one batch of ${ITEMS.toLocaleString('en-US')} unique PNGs (items/s, accepted → completed)`,
      rps: itemsPerSecond,
      p50: 0,
      p99: 0,
      rssMiB: h.rssMiB(service.server.child.pid),
      non2xx: 0,
      errors: done.failed,
    });

    const headers = h.rotatingKey(service.keys.slice(1));
    rows.push(
      await h.scenario(
        'i-idle',
        'ours, PNG, unique content, no batch running',
        service.server,
        GENERATE,
        headers,
        h.body('png', true),
      ),
    );
    // A batch large enough to outlast warm-up and measurement, cancelled afterwards.
    const during = await startBatch(base, key, Math.min(50_000, ITEMS * 5));
    rows.push(
      await h.scenario(
        'i-during',
        'ours, PNG, unique content, while a batch renders',
        service.server,
        GENERATE,
        headers,
        h.body('png', true),
      ),
    );
    const state = await batchState(base, key, during);
    if (state.status !== 'running')
      console.log(`i-during: the batch was ${state.status} by the end of the measurement; lengthen BENCH_BATCH_ITEMS`);
    await fetch(`${base}${BATCHES}/${during}`, { method: 'DELETE', headers: { 'x-api-key': key } });
  } finally {
    await service.server.stop();
    h.cleanup(service.dataDir);
  }
  return rows;
}

/** The two targets of the batch issue, as lines of the ratio table. */
export function batchTargets(get: (id: string) => Row | undefined): string[] {
  const batch = get('i-batch');
  const inline = get('e');
  const idle = get('i-idle');
  const during = get('i-during');
  const lines: string[] = [];
  if (batch && inline)
    lines.push(
      `| i-batch/e | ${(batch.rps / inline.rps).toFixed(2)} | ≥ 1: batch items/s at least the best-possible ` +
        `inline render's req/s | ${batch.rps >= inline.rps ? 'met' : 'NOT met'} |`,
    );
  if (idle && during)
    lines.push(
      `| p99 i-during/i-idle | ${(during.p99 / Math.max(idle.p99, 0.001)).toFixed(2)} | ≤ 2: sync PNG p99 ` +
        `during a batch | ${during.p99 <= 2 * idle.p99 ? 'met' : 'NOT met'} |`,
    );
  return lines;
}

export const batchesScenario: BenchScenario = {
  ids: ['i-batch', 'i-idle', 'i-during'],
  run: async () => ({
    rows: await batchScenarios({
      ourService,
      scenario: measureRow,
      rotatingKey,
      body,
      rssMiB,
      cleanup: (dir) => rmSync(dir, { recursive: true, force: true }),
    }),
  }),
};
