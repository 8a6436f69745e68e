// Two load scenarios measured in alternating slices (a, b, a, b, …), so a slower or faster stretch of the machine falls
// on both alike.
import type { AutocannonResult } from 'autocannon';
import { drive, type DriveOptions, type Row } from './load.js';
import { cpuSeconds, rssMiB, type Started } from './processes.js';

export interface Side {
  id: string;
  name: string;
  server: Started;
  url: string;
  headersFor: () => Record<string, string>;
  makeBody: () => string;
}

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;

/** One side's slices as a row: throughput and CPU totals over the slices, p50 and p99 the median slice's. */
export function rowOfSlices(
  id: string,
  name: string,
  runs: AutocannonResult[],
  cpuUsed: number,
  seconds: number,
  pid: number | undefined,
): Row {
  const requests = runs.reduce((sum, run) => sum + run.requests.total, 0);
  return {
    id,
    name,
    rps: requests / seconds,
    p50: median(runs.map((run) => run.latency.p50)),
    p99: median(runs.map((run) => run.latency.p99)),
    rssMiB: rssMiB(pid),
    non2xx: runs.reduce((sum, run) => sum + run.non2xx, 0),
    errors: runs.reduce((sum, run) => sum + run.errors + run.timeouts, 0),
    cpuMicros: (cpuUsed / Math.max(1, requests)) * 1e6,
  };
}

/**
 * On this kind of VM one scenario's throughput moves ±15–20% from one run to the next, and two rows
 * measured a minute apart carry that drift into their ratio. Here each side runs `slices` times for
 * seconds/slices, turn about, after one warm-up each: throughput and CPU are totals over the slices,
 * p50 and p99 the median of the slices' (percentiles of slices cannot be merged exactly).
 */
export async function sideBySide(
  sides: [Side, Side],
  seconds: number,
  warmupSeconds: number,
  slices: number,
  options: DriveOptions,
): Promise<[Row, Row]> {
  const sliceSeconds = Math.max(1, Math.round(seconds / slices));
  for (const side of sides)
    if (warmupSeconds > 0) await drive(side.url, side.headersFor, side.makeBody, warmupSeconds, options);
  const results: AutocannonResult[][] = [[], []];
  const cpu = [0, 0];
  for (let slice = 0; slice < slices; slice++) {
    for (const [i, side] of sides.entries()) {
      const before = cpuSeconds(side.server.child.pid);
      results[i]!.push(await drive(side.url, side.headersFor, side.makeBody, sliceSeconds, options));
      cpu[i]! += cpuSeconds(side.server.child.pid) - before;
    }
  }
  const rows = sides.map((side, i): Row => {
    const runs = results[i]!;
    const row = rowOfSlices(side.id, side.name, runs, cpu[i]!, sliceSeconds * slices, side.server.child.pid);
    console.log(
      `${row.id}: ${Math.round(row.rps)} req/s (${slices} slices of ${sliceSeconds} s, turn about with ` +
        `${sides[1 - i]!.id}: ` +
        `${runs.map((run) => Math.round(run.requests.average)).join(', ')}), p50 ${row.p50} ms, p99 ${row.p99} ms, ` +
        `non-2xx ${row.non2xx}, errors ${row.errors}, server CPU ${row.cpuMicros!.toFixed(0)} µs/request`,
    );
    return row;
  });
  return [rows[0]!, rows[1]!];
}
