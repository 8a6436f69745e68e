// Starts one real Redis Cluster on loopback: 3 masters and 3 replicas (redis-server --cluster-enabled, redis-cli
// --cluster create).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './processes.js';
import { REDIS_SERVER, redisServerArgs } from './redis-server.js';
import { waitFor } from './wait.js';

const exec = promisify(execFile);
const REDIS_CLI = process.env.REDIS_CLI_BIN ?? '/usr/bin/redis-cli';

export interface RedisClusterNode {
  port: number;
  /** The node's pid, for a test that kills it. */
  pid: number;
  /** SIGKILL: a crash. The cluster fails its slots over to the node's replica. */
  kill(): Promise<void>;
}

export interface RedisCluster {
  /** REDIS_CLUSTER_NODES: every node as host:port. */
  seeds: string;
  nodes: RedisClusterNode[];
  /** The ports of the nodes that are masters now (CLUSTER NODES). */
  masters(): Promise<number[]>;
  /** Runs redis-cli against one node. */
  cli(port: number, ...args: string[]): Promise<string>;
  destroy(): Promise<void>;
}

async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await exec(REDIS_CLI, ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 30_000 });
  return stdout;
}

function startNode(port: number, dir: string): ChildProcess {
  // Replicas that ignore the master's staleness fail over within the node timeout (1 s); no persistence to disk.
  const clustered = [
    ...['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf'],
    ...['--cluster-node-timeout', '1000', '--cluster-replica-validity-factor', '0'],
    ...['--save', '', '--appendonly', 'no'],
  ];
  const child = spawn(REDIS_SERVER, redisServerArgs(port, dir, clustered), { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.resume();
  return child;
}

/**
 * Starts six nodes and joins them (redis-cli --cluster create … --cluster-replicas 1); resolves once every slot is
 * served.
 */
export async function startRedisCluster(): Promise<RedisCluster> {
  const root = await mkdtemp(join(tmpdir(), 'qrm-redis-cluster-'));
  const ports: number[] = [];
  for (let i = 0; i < 6; i++) ports.push(await freePort());
  const children: ChildProcess[] = [];
  for (const port of ports) {
    const dir = join(root, String(port));
    await mkdir(dir);
    children.push(startNode(port, dir));
  }
  const destroy = async () => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }),
    );
    await rm(root, { recursive: true, force: true });
  };
  try {
    await waitFor(
      'the cluster nodes to answer',
      async () =>
        (await Promise.all(ports.map((p) => cli(p, 'PING').catch(() => '')))).every((r) => r.startsWith('PONG')),
      {
        timeoutMs: 10_000,
        intervalMs: 50,
      },
    );
    await exec(
      REDIS_CLI,
      ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'],
      { timeout: 60_000 },
    );
    await waitFor(
      'the cluster to serve every slot',
      async () =>
        (await Promise.all(ports.map((p) => cli(p, 'CLUSTER', 'INFO')))).every((i) => i.includes('cluster_state:ok')),
      {
        timeoutMs: 30_000,
        intervalMs: 100,
      },
    );
  } catch (error) {
    await destroy();
    throw error;
  }
  const masters = async () => {
    for (const port of ports) {
      const i = ports.indexOf(port);
      if (children[i]!.exitCode !== null || children[i]!.signalCode !== null) continue;
      const nodes = await cli(port, 'CLUSTER', 'NODES');
      // <id> <ip:port@cport> <flags> <master> <ping> <pong> <epoch> <link> <slot>…: a serving master has slots.
      return nodes
        .split('\n')
        .map((line) => line.split(' '))
        .filter(
          (fields) => fields[2]?.split(',').includes('master') && !fields[2].includes('fail') && fields.length > 8,
        )
        .map((fields) => Number(/:(\d+)@/.exec(fields[1] ?? '')?.[1]));
    }
    return [];
  };
  return {
    seeds: ports.map((p) => `127.0.0.1:${p}`).join(','),
    nodes: ports.map((port, i) => ({
      port,
      pid: children[i]!.pid!,
      async kill() {
        const child = children[i]!;
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      },
    })),
    masters,
    cli,
    destroy,
  };
}
