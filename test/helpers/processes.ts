// Starts the real server and CLI as child processes (TypeScript through tsx), on free loopback ports.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { waitFor } from './wait.js';

const exec = promisify(execFile);
const TSX = ['--import', 'tsx'];

/** A port free on loopback right now, for a child process to listen on. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((closed) => server.close(closed));
  return port;
}

export async function runCli(args: string[], env: Record<string, string>): Promise<{ stdout: string; stderr: string }> {
  return exec(process.execPath, [...TSX, 'src/entries/qrm.ts', ...args], {
    env: { ...process.env, ...env },
    timeout: 30_000,
  });
}

export interface RunningServer {
  process: ChildProcess;
  baseUrl: string;
  output: () => string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Resolves once /healthz answers; fails after `timeoutMs`. */
export async function startServer(env: Record<string, string>, timeoutMs = 20_000): Promise<RunningServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [...TSX, 'src/entries/api.ts'], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const baseUrl = `http://127.0.0.1:${port}`;
  const answers = async () => {
    if (child.exitCode !== null) throw new Error(`server exited early: ${output}`);
    return (await fetch(`${baseUrl}/healthz`).catch(() => undefined))?.ok === true; // false while not listening yet
  };
  await waitFor('the server to answer /healthz', answers, { timeoutMs, intervalMs: 100 }).catch((error: Error) => {
    child.kill('SIGKILL');
    throw new Error(`${error.message}: ${output}`);
  });
  return {
    process: child,
    baseUrl,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

export interface EntryProcess {
  process: ChildProcess;
  output: () => string;
  /** Resolves with the exit code once the process has exited, by itself or stopped. */
  exited: Promise<number | null>;
  /** SIGTERM (SIGKILL after 15 s); resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Spawns one of the worker processes (workers/jobs.ts, workers/render.ts) as ops run it, without waiting for it. */
export function spawnEntry(entry: string, env: Record<string, string>): EntryProcess {
  const child = spawn(process.execPath, [...TSX, `workers/${entry}`], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  return { process: child, output: () => output, exited, stop };
}

/** Spawns a worker process (spawnEntry); resolves once it logs `readyLine`, fails if it exits first. */
export async function startEntry(
  entry: string,
  env: Record<string, string>,
  readyLine: string,
  timeoutMs = 30_000,
): Promise<EntryProcess> {
  const started = spawnEntry(entry, env);
  const ready = () => {
    if (started.process.exitCode !== null) throw new Error(`${entry} exited early: ${started.output()}`);
    return started.output().includes(readyLine);
  };
  await waitFor(`${entry} to log "${readyLine}"`, ready, { timeoutMs, intervalMs: 100 }).catch(async (error: Error) => {
    await started.stop();
    throw new Error(`${error.message}: ${started.output()}`);
  });
  return started;
}

/**
 * Spawns the render worker process (workers/render.ts) on this Redis and data directory, with one thread and a 1 s job
 * lock so that a killed process's chunk is taken back quickly; does not wait for it to be ready.
 */
export function spawnRenderProcess(redisUrl: string, dataDir: string): ChildProcess {
  return spawn(process.execPath, [...TSX, 'workers/render.ts'], {
    env: {
      ...process.env,
      REDIS_URL: redisUrl,
      QR_DATA_DIR: dataDir,
      RENDER_THREADS: '1',
      JOB_LOCK_MS: '1000',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

/** Sends `signal` to the child unless it has exited already; resolves once it has exited. */
export async function killChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}
