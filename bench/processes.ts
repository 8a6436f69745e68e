// Child processes for the load benchmark: start a server on a free loopback port, measure its RSS, stop it.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface Started {
  child: ChildProcess;
  port: number;
  stop(): Promise<void>;
}

export async function startProcess(
  command: string,
  args: string[],
  env: Record<string, string>,
  port: number,
  timeoutMs = 20_000,
): Promise<Started> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  const deadline = Date.now() + timeoutMs;
  while (!(await portOpen(port))) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${args.join(' ')} did not listen on ${port} within ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    port,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * CPU seconds (user + system) the process has used, from /proc (Linux): per request, a figure other load on the machine
 * barely moves.
 */
export function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** Resident set size in MiB, from /proc (Linux). */
export function rssMiB(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/**
 * An account on the plan with `keys` API keys, made with the qrm CLI against the service's data (env: QR_DATA_DIR...);
 * returns the secrets.
 */
export function createAccountKeys(env: NodeJS.ProcessEnv, email: string, plan: string, keys: number): string[] {
  const cli = join(import.meta.dirname, '..', 'src', 'entries', 'qrm.js');
  execFileSync(process.execPath, [cli, 'accounts', 'create', '--email', email, '--plan', plan], {
    env,
    stdio: 'ignore',
  });
  return Array.from({ length: keys }, (_, k) =>
    execFileSync(process.execPath, [cli, 'keys', 'create', '--email', email, '--name', `bench ${k}`], {
      env,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .toString()
      .trim(),
  );
}
