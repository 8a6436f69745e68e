// What a Redis node has done, from INFO: calls per command (scripts' own calls included) and CPU, and a MONITOR tally.
import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export interface RedisSnapshot {
  /** Calls per command name, the commands a script runs counted too (INFO commandstats). */
  calls: Map<string, number>;
  /**
   * µs spent running each command (INFO commandstats usec): Redis's work on it, without network and event-loop cost.
   */
  micros: Map<string, number>;
  /** used_cpu_user + used_cpu_sys, µs. */
  cpuMicros: number;
  keys: number;
}

async function info(port: number, ...args: string[]): Promise<string> {
  return (await exec('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 10_000 })).stdout;
}

export async function redisSnapshot(port: number): Promise<RedisSnapshot> {
  const calls = new Map<string, number>();
  const micros = new Map<string, number>();
  for (const match of (await info(port, 'INFO', 'commandstats')).matchAll(
    /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm,
  )) {
    calls.set(match[1]!, Number(match[2]));
    micros.set(match[1]!, Number(match[3]));
  }
  const cpu = await info(port, 'INFO', 'cpu');
  const seconds = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(cpu)?.[1] ?? 0);
  const keys = Number(/^(\d+)/.exec((await info(port, 'DBSIZE')).trim())?.[1] ?? 0);
  return { calls, micros, cpuMicros: (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1e6, keys };
}

const SNAPSHOT_COMMANDS = new Set(['info', 'dbsize', 'monitor']);

/** Calls (or µs) per command between two snapshots, without the INFO and DBSIZE the snapshots themselves cost. */
export function callsBetween(
  before: RedisSnapshot,
  after: RedisSnapshot,
  figure: 'calls' | 'micros' = 'calls',
): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, value] of after[figure]) {
    if (SNAPSHOT_COMMANDS.has(name)) continue;
    const delta = value - (before[figure].get(name) ?? 0);
    if (delta > 0) out.set(name, delta);
  }
  return out;
}

export interface MonitorTally {
  /** Commands clients sent (round trips, a pipeline's counted one each), per command name (lower case). */
  client: Map<string, number>;
  /** Commands scripts ran, per command name. */
  script: Map<string, number>;
  stop(): Promise<void>;
}

/**
 * Counts MONITOR lines: `[db lua]` ones come from scripts, the rest from clients. MONITOR costs Redis CPU: tally apart.
 */
export async function monitorTally(port: number): Promise<MonitorTally> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const tally: MonitorTally = {
    client: new Map(),
    script: new Map(),
    stop: async () => {
      socket.end();
      await new Promise((resolve) => socket.once('close', resolve));
    },
  };
  let rest = '';
  let started = false;
  socket.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString('latin1')).split('\r\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '+OK') started = true;
      else if (started && line.startsWith('+')) {
        const name = /^\+[\d.]+ \[[^\]]*\] "([^"]+)"/.exec(line)?.[1]?.toLowerCase() ?? 'unknown';
        const counts = /^\+[\d.]+ \[\d+ lua\]/.test(line) ? tally.script : tally.client;
        counts.set(name, (counts.get(name) ?? 0) + 1);
      }
    }
  });
  socket.write('MONITOR\r\n');
  while (!started) await new Promise((resolve) => setTimeout(resolve, 5));
  return tally;
}
