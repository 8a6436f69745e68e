// Where a batch's time goes (opt-in row batch-cpu): one large batch on the built embedded service, CPU per item of the
// event loop and of the other threads (Linux /proc).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchScenario } from '../harness.js';
import { createAccountKeys, freePort, startProcess } from '../processes.js';

// BENCH_ONLY=batch-cpu npm run bench (BENCH_BATCH_ITEMS, NODE_ARGS="--cpu-prof …" for the service); never part of the
// full run.
// CPU per item is the figure to compare on a shared machine; wall time and items/s move with everyone else's load.
const ITEMS = Number(process.env.BENCH_BATCH_ITEMS ?? 10_000);
const TICKS_PER_SECOND = 100;

interface ThreadTimes {
  /** user + system CPU seconds */
  cpu: number;
  /** seconds runnable but waiting for a core (the machine's other load) */
  waited: number;
}

/** Per thread of `pid`, keyed `main` or `<thread name>#<tid>` (render and V8 helper threads are all named `node`). */
function threadTimes(pid: number): Map<string, ThreadTimes> {
  const times = new Map<string, ThreadTimes>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const [, waitNs] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ');
      const name = tid === String(pid) ? 'main' : `${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}#${tid}`;
      times.set(name, {
        cpu: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND,
        waited: Number(waitNs) / 1e9,
      });
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return times;
}

function since(before: Map<string, ThreadTimes>, after: Map<string, ThreadTimes>): Array<[string, ThreadTimes]> {
  return [...after].map(([name, t]) => {
    const b = before.get(name) ?? { cpu: 0, waited: 0 };
    return [name, { cpu: t.cpu - b.cpu, waited: t.waited - b.waited }];
  });
}

const micros = (seconds: number, items: number) => Math.round((seconds / items) * 1e6);

async function batchCpu(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'qrm-batch-cpu-'));
  const env = { ...process.env, QR_DATA_DIR: dataDir, LOG_LEVEL: 'warn' } as Record<string, string>;
  const [key] = createAccountKeys(env, 'batchcpu@example.com', 'business', 1);
  const port = await freePort();
  const nodeArgs = (process.env.NODE_ARGS ?? '').split(' ').filter(Boolean);
  const server = await startProcess(
    process.execPath,
    [...nodeArgs, join(import.meta.dirname, '..', '..', 'src', 'entries', 'api.js')],
    { ...env, PORT: String(port), HOST: '127.0.0.1' },
    port,
  );
  const base = `http://127.0.0.1:${port}`;
  const headers = { 'x-api-key': key! };
  try {
    const pid = server.child.pid!;
    const tag = Date.now();
    const body = JSON.stringify({
      items: Array.from({ length: ITEMS }, (_, i) => ({
        content: `https://example.com/batch/${tag}/${i}`,
        type: 'url',
        outputFormat: 'png',
      })),
    });
    const before = threadTimes(pid);
    const started = performance.now();
    const res = await fetch(`${base}/api/v1/QRManager/batches`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body,
    });
    if (res.status !== 202) throw new Error(`batch refused: ${res.status} ${await res.text()}`);
    const acceptedMs = performance.now() - started;
    const { id } = (await res.json()) as { id: string };
    let state: { status: string; succeeded: number };
    // Polled as bench/batches.ts polls (every 50 ms): its requests are part of what the event loop does.
    for (;;) {
      state = (await (await fetch(`${base}/api/v1/QRManager/batches/${id}`, { headers })).json()) as typeof state;
      if (!['queued', 'running'].includes(state.status)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const seconds = (performance.now() - started) / 1000;
    const threads = since(before, threadTimes(pid));
    const main = threads.find(([name]) => name === 'main')![1];
    const others = threads.filter(([name]) => name !== 'main');
    const busiest = others.sort((a, b) => b[1].cpu - a[1].cpu).slice(0, 2);
    console.log(
      JSON.stringify({
        items: state.succeeded,
        status: state.status,
        acceptedMs: Math.round(acceptedMs),
        seconds: +seconds.toFixed(2),
        itemsPerSecond: Math.round(state.succeeded / seconds),
        mainCpuPerItemUs: micros(main.cpu, state.succeeded),
        otherThreadsCpuPerItemUs: micros(
          others.reduce((sum, [, t]) => sum + t.cpu, 0),
          state.succeeded,
        ),
        // The render threads (the two busiest besides main): the share of the wall time they neither ran nor waited for
        // a core.
        renderThreadsIdle: busiest.map(([, t]) => +(1 - (t.cpu + t.waited) / seconds).toFixed(2)),
        mainWaitedForCoreS: +main.waited.toFixed(2),
      }),
    );
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export const batchCpuScenario: BenchScenario = {
  ids: ['batch-cpu'],
  optIn: true,
  run: async () => {
    await batchCpu();
    return {};
  },
};
