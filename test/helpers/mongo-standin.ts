// The MongoDB a test runs against: MONGODB_URL, else the wire-level STAND-IN (mockupdb + mongomock), never proof
// of MongoDB behaviour (docs/deployment.md says why: no MongoDB server can be installed on the machines we test on).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface MongoStandIn {
  url: string;
  /** Stops it (stdin closed, then SIGKILL if it lingers). */
  stop(): Promise<void>;
}

// Debian's interpreter explicitly: python3-mockupdb and python3-mongomock are Debian packages, and PATH may name
// another Python.
const PYTHON = process.env.MONGO_STANDIN_PYTHON ?? '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./mongo-standin.py', import.meta.url));
const READY_WITHIN_MS = 10_000;

export interface StandInOptions {
  /** A file the stand-in appends every command it receives to, one line of extended JSON each. */
  recordTo?: string;
}

export async function startMongoStandIn(options: StandInOptions = {}): Promise<MongoStandIn> {
  // stdin stays a pipe: the stand-in exits when it closes, so a crashed test run never leaves it behind.
  const record = options.recordTo ? ['--record', options.recordTo] : [];
  const child = spawn(PYTHON, ['-B', SCRIPT, ...record], { stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
    await exited;
    clearTimeout(timer);
  };

  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the MongoDB stand-in did not start within ${READY_WITHIN_MS} ms: ${output}`)),
        READY_WITHIN_MS,
      );
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const ready = /READY (\d+)/.exec(stdout);
        if (!ready) return;
        clearTimeout(timer);
        resolve(Number(ready[1]));
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the MongoDB stand-in exited (${code}) before it was ready: ${output}`));
      });
    });
    // directConnection: it is one standalone server, never a replica set.
    return { url: `mongodb://127.0.0.1:${port}/?directConnection=true`, stop };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

/** For test titles and warnings: which MongoDB a test runs against (known before it starts). */
export function mongoTargetLabel(): string {
  return process.env.MONGODB_URL
    ? 'MongoDB at MONGODB_URL'
    : 'the wire-level STAND-IN (mockupdb + mongomock), not a MongoDB server — set MONGODB_URL for a real one';
}

/** What a MongoDB test runs against: the server at MONGODB_URL when set, else a stand-in of its own. */
export interface MongoTarget {
  url: string;
  standIn: boolean;
  /** The URL with another database name in its path (for processes that take only MONGODB_URL). */
  withDatabase(name: string): string;
  stop(): Promise<void>;
}

/** `recordTo` applies to the stand-in only: a server at MONGODB_URL records nothing. */
export async function startMongoTarget(options: StandInOptions = {}): Promise<MongoTarget> {
  const real = process.env.MONGODB_URL;
  const standIn = real ? undefined : await startMongoStandIn(options);
  const url = real ?? standIn!.url;
  return {
    url,
    standIn: !real,
    withDatabase(name) {
      const parsed = new URL(url);
      parsed.pathname = `/${name}`;
      return parsed.toString();
    },
    stop: async () => standIn?.stop(),
  };
}

/** Drops a test's throwaway database (on a real server it would otherwise stay). */
export async function dropDatabase(url: string, dbName: string): Promise<void> {
  const { openMongoConnection } = await import('../../src/adapters/mongo/connection.js');
  const connection = await openMongoConnection(url, { dbName });
  try {
    await connection.dropDatabase();
  } finally {
    await connection.close();
  }
}
