// Starts a real redis-server on a free loopback port with its own temp dir; it can be stopped and started again on the
// same port.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './processes.js';
import { waitFor } from './wait.js';

export interface RedisServer {
  url: string;
  port: number;
  /**
   * Stops the server (SIGTERM: it writes its AOF and exits; SIGKILL: a crash, survived by the AOF fsynced on every
   * write); the data stays in its dir.
   */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port and dir, and resolves once it answers PING. */
  start(): Promise<void>;
  /** Stops it for good and removes its dir (afterAll). */
  destroy(): Promise<void>;
}

export const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';

/** redis-server's arguments for a node on loopback at `port` keeping its files in `dir`: never evicting a key. */
export function redisServerArgs(port: number, dir: string, persistence: string[]): string[] {
  return [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    ...persistence,
    '--maxmemory-policy',
    'noeviction',
    '--loglevel',
    'warning',
  ];
}

/** One PING over a raw socket; true on +PONG. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'qrm-redis-'));
  let child: ChildProcess | undefined;
  let output = '';

  const start = async () => {
    // AOF with fsync on every write, so a stop and start keeps every counter (the outage tests rely on it).
    const persistence = ['--save', '', '--appendonly', 'yes', '--appendfsync', 'always'];
    child = spawn(REDIS_SERVER, redisServerArgs(port, dir, persistence), { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const started = child;
    const answers = async () => {
      if (started.exitCode !== null) throw new Error(`redis-server exited: ${output}`);
      return ping(port);
    };
    await waitFor('redis-server to answer PING', answers, { timeoutMs: 10_000, intervalMs: 50 }).catch(
      (error: Error) => {
        started.kill('SIGKILL');
        throw new Error(`${error.message}: ${output}`);
      },
    );
  };

  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill(signal);
    const timer = setTimeout(() => running.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    async destroy() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
