// One load run with autocannon (POST JSON, a body and headers made per request), and the row it becomes in the report.
import autocannon, { type AutocannonRequest, type AutocannonResult } from 'autocannon';
import { rssMiB, type Started } from './processes.js';

/** One row of the load table (bench/run.ts): throughput, latency and memory of one scenario. */
export interface Row {
  id: string;
  name: string;
  rps: number;
  p50: number;
  p99: number;
  rssMiB: number;
  /** Answers other than the scenario's expected status. */
  non2xx: number;
  errors: number;
  /** Server CPU time per answered request, µs (undefined where not measured). */
  cpuMicros?: number | undefined;
}

export interface DriveOptions {
  connections: number;
  /** Requests per second across all connections; unset: as fast as answers come. */
  overallRate?: number;
}

/** A bystander's bodies: a new 512 px URL code each time, PNG and WebP in turn. */
export function bystanderBodies(): () => string {
  let sequence = 0;
  return () => {
    const n = ++sequence;
    return JSON.stringify({
      content: `https://example.com/bystander/${n}`,
      type: 'url',
      outputFormat: n % 2 === 0 ? 'png' : 'webp',
      size: 512,
    });
  };
}

export async function drive(
  url: string,
  headersFor: () => Record<string, string>,
  makeBody: () => string,
  seconds: number,
  options: DriveOptions,
): Promise<AutocannonResult> {
  const request: AutocannonRequest = {
    method: 'POST',
    setupRequest: (req) => ({
      ...req,
      headers: { 'content-type': 'application/json', ...headersFor() },
      body: makeBody(),
    }),
  };
  return autocannon({
    url,
    connections: options.connections,
    duration: seconds,
    requests: [request],
    timeout: 10,
    ...(options.overallRate ? { overallRate: options.overallRate } : {}),
  });
}

/** One autocannon run as a table row, without printing it (rowOf prints; other scenarios print their own checks). */
export function measuredRow(
  id: string,
  name: string,
  result: AutocannonResult,
  server: Started,
  cpuUsed?: number,
): Row {
  return {
    id,
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    rssMiB: rssMiB(server.child.pid),
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpuMicros: cpuUsed === undefined ? undefined : (cpuUsed / Math.max(1, result.requests.total)) * 1e6,
  };
}

export function rowOf(id: string, name: string, result: AutocannonResult, server: Started, cpuUsed?: number): Row {
  const row = measuredRow(id, name, result, server, cpuUsed);
  console.log(
    `${id}: ${Math.round(row.rps)} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, RSS ${row.rssMiB.toFixed(0)}` +
      ` MiB, non-2xx ${row.non2xx}, errors ${row.errors}` +
      `${row.cpuMicros === undefined ? '' : `, server CPU ${row.cpuMicros.toFixed(0)} µs/request`}`,
  );
  return row;
}

/** Rotates over keys, one per request. */
export function rotatingKey(keys: string[]): () => Record<string, string> {
  let i = 0;
  return () => ({ 'x-api-key': keys[i++ % keys.length]! });
}
