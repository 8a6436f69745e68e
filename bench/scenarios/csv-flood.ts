// Bench row: a free key posts four ~14 MB CSV batches at a time, over and over, while another account generates and /healthz is polled; that account's p99 against an idle server.
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { withNeighbours, type BenchScenario } from '../harness.js';
import { drive, rowOf, type Row } from '../load.js';
import { cpuSeconds } from '../processes.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const NEIGHBOUR_CONNECTIONS = 10;
// A steady client under its key's burst (business: 1,000 a second), so both rows serve the same work and only latency moves.
const NEIGHBOUR_RATE = 400;
// The limit issue 25 sets: the neighbour's p99 during the flood at most twice its p99 on an idle server, and /healthz always 200.
const MAX_P99_RATIO = 2;
const PARALLEL_UPLOADS = 4;
/** Each uploader repeats the post once a second (BENCH_CSV_GAP_MS=0: back to back, a bandwidth flood). */
const UPLOAD_GAP_MS = Number(process.env.BENCH_CSV_GAP_MS ?? 1_000);
const HEALTH_POLL_MS = 100;
const NODE = process.execPath;
const BATCHES = '/api/v1/QRManager/batches';

/** The reproduction, its rows made longer to reach its upper size: 99,999 rows, about 14 MB. */
function bigCsv(): Buffer {
  const rows = ['content,type,outputFormat,name'];
  const path = 'abcdefghijklmnopqrstuvwxyz'.repeat(3);
  for (let i = 0; i < 99_999; i++) rows.push(`https://example.com/item/${String(i).padStart(6, '0')}/${path},url,png,n${i}`);
  return Buffer.from(`${rows.join('\n')}\n`);
}

/** One POST of the whole body (Content-Length set, as curl --data-binary sends it); the status, or 'reset' when the server closed first. */
function postCsv(port: number, key: string, body: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path: BATCHES, headers: { 'content-type': 'text/csv', 'content-length': body.length, 'x-api-key': key } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(String(res.statusCode)));
        res.on('error', () => resolve(String(res.statusCode)));
      },
    );
    req.on('error', () => resolve('reset'));
    req.end(body);
  });
}

/**
 * The flooder, in a process of its own (as curl would be): its CPU is not the measuring client's. It builds its CSV
 * first, says `ready`, and floods once the parent says `go` on stdin: the attacker's file is ready on disk before the
 * attack (the reproduction writes big.csv, then posts it), so building it is not part of the measured window.
 * Prints the statuses as JSON.
 */
async function flood(port: number, key: string, seconds: number): Promise<void> {
  const csv = bigCsv();
  process.stdout.write('ready\n');
  await new Promise((resolve) => process.stdin.once('data', resolve));
  process.stdin.pause();
  const until = Date.now() + seconds * 1000;
  const statuses: string[] = [];
  const uploader = async () => {
    while (Date.now() < until) {
      const started = Date.now();
      statuses.push(await postCsv(port, key, csv));
      await new Promise((r) => setTimeout(r, Math.max(0, UPLOAD_GAP_MS - (Date.now() - started))));
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_UPLOADS }, uploader));
  process.stdout.write(JSON.stringify({ statuses, bytes: csv.length }));
}

interface Flooder {
  /** Starts the flood; resolves with what the uploads got once it is over. */
  go(): Promise<{ statuses: string[]; bytes: number }>;
}

/** Starts the flooder process and resolves once its CSV is built and it waits for `go`. */
function floodInChild(port: number, key: string, seconds: number): Promise<Flooder> {
  return new Promise((resolveReady, reject) => {
    const child = spawn(NODE, [fileURLToPath(import.meta.url), 'flood', String(port), key, String(seconds)], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    let ready = false;
    let resolveDone: (value: { statuses: string[]; bytes: number }) => void = () => {};
    let rejectDone: (error: Error) => void = reject;
    const done = new Promise<{ statuses: string[]; bytes: number }>((resolve, fail) => {
      resolveDone = resolve;
      rejectDone = fail;
    });
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!ready && out.startsWith('ready\n')) {
        ready = true;
        out = out.slice('ready\n'.length);
        resolveReady({
          go: () => {
            child.stdin.end('go\n');
            return done;
          },
        });
      }
    });
    child.on('error', (error) => (ready ? rejectDone(error) : reject(error)));
    child.on('exit', () => {
      try {
        resolveDone(JSON.parse(out) as { statuses: string[]; bytes: number });
      } catch (error) {
        const failure = error instanceof Error ? error : new Error(String(error));
        if (ready) rejectDone(failure);
        else reject(failure);
      }
    });
  });
}

function tally(values: string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].map(([v, n]) => `${n}× ${v}`).join(', ');
}

/** Runs the scenario on a server of its own; returns the idle and the flooded row of the neighbour. */
export async function csvFlood(): Promise<Row[]> {
  return withNeighbours('csv-flood', async ({ server, neighbourKey, intruderKey: flooderKey }) => {
    const { port } = server;
    const neighbourBodies = Array.from({ length: 64 }, (_, i) =>
      JSON.stringify({ content: `https://example.com/neighbour/${i}`, type: 'url', outputFormat: 'png' }),
    );
    let next = 0;
    const neighbour = (seconds: number) =>
      drive(
        `http://127.0.0.1:${port}/api/v1/QRManager/generate`,
        () => ({ 'x-api-key': neighbourKey }),
        () => neighbourBodies[next++ % neighbourBodies.length]!,
        seconds,
        { connections: NEIGHBOUR_CONNECTIONS, overallRate: NEIGHBOUR_RATE },
      );
    if (WARMUP > 0) await neighbour(WARMUP);
    // The server's CPU in each window, per neighbour request: what the flood costs the server itself, apart from the machine.
    const serverCpu = () => cpuSeconds(server.child.pid);
    let cpuAt = serverCpu();
    const idle = await neighbour(DURATION);
    const idleCpu = serverCpu() - cpuAt;

    const flooder = await floodInChild(port, flooderKey, DURATION);
    const until = Date.now() + DURATION * 1000;
    const health: Array<{ status: string; ms: number }> = [];
    const poller = async () => {
      while (Date.now() < until) {
        const started = performance.now();
        const status = await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (res) => String(res.status),
          () => 'error',
        );
        health.push({ status, ms: performance.now() - started });
        await new Promise((r) => setTimeout(r, HEALTH_POLL_MS));
      }
    };
    cpuAt = serverCpu();
    const [flooded, uploads] = await Promise.all([neighbour(DURATION), flooder.go(), poller()]);
    const floodedCpu = serverCpu() - cpuAt;

    const ratio = flooded.latency.p99 / Math.max(idle.latency.p99, 1);
    const healthOk = health.every((h) => h.status === '200');
    const slowestHealth = Math.max(...health.map((h) => h.ms));
    const verdict = ratio <= MAX_P99_RATIO && healthOk ? 'met' : 'NOT met';
    const note =
      `${uploads.statuses.length} posts of ${(uploads.bytes / 1e6).toFixed(1)} MB (${tally(uploads.statuses)}); ` +
      `/healthz ${tally(health.map((h) => h.status))}, slowest ${slowestHealth.toFixed(0)} ms`;
    console.log(`o-csv: ${note}`);
    return [
      rowOf('o-idle', 'ours, one business account generating on an otherwise idle server', idle, server, idleCpu),
      rowOf(
        'o-csv',
        `the same account while a free key posts ${PARALLEL_UPLOADS} × ~14 MB CSV batches at a time (${note}): p99 ${ratio.toFixed(2)}× idle, target ≤ ${MAX_P99_RATIO}× and /healthz always 200 — ${verdict}`,
        flooded,
        server,
        floodedCpu,
      ),
    ];
  });
}

export const csvFloodScenario: BenchScenario = { ids: ['o-idle', 'o-csv'], run: async () => ({ rows: await csvFlood() }) };

// Runs alone too: `npm run build && node dist/bench/scenarios/csv-flood.js`.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv[2] === 'flood') await flood(Number(process.argv[3]), process.argv[4]!, Number(process.argv[5]));
  else await csvFlood();
}
