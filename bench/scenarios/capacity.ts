// Rows k-node and k-cluster: Redis commands, round trips, keys and CPU per request kind, and how two instances spread a
// cluster.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedisCluster } from '../../test/helpers/redis-cluster.js';
import { ACCOUNTS, GENERATE_PATH, NODE, startApi, withRedis, withService, type BenchScenario } from '../harness.js';
import { cpuSeconds, createAccountKeys, type Started } from '../processes.js';
import { callsBetween, monitorTally, redisSnapshot } from '../redis-info.js';
import { startBatch, untilFinished } from './batches.js';

const COUNT = Number(process.env.BENCH_CAPACITY_REQUESTS ?? 300);
const CONCURRENCY = 8;
/** Scans are counted, and last-used times flushed, after the answer: the window waits this long for them. */
const SETTLE_MS = 1500;
const CLUSTER_ACCOUNTS = 25;

interface OpCost {
  kind: string;
  commands: Map<string, number>;
  clientCommands: number;
  scriptCommands: number;
  redisMicros: number;
  /**
   * The Redis process's CPU (used_cpu_user + sys) per request, network and event loop included; undefined beside
   * sweeps.
   */
  redisCpuMicros: number | undefined;
  apiMicros: number;
  keysAdded: number;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

/**
 * `count` calls of `one`, CONCURRENCY at a time; a failed answer ends the bench (a figure of refusals is no figure).
 */
async function times(count: number, one: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await one(next++);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

let sequence = 0;

function generate(server: Started, key: string, content: string): Promise<void> {
  return fetch(`http://127.0.0.1:${server.port}${GENERATE_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ content, type: 'url', outputFormat: 'png' }),
  }).then(async (res) => {
    if (res.status !== 200) throw new Error(`generate answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  });
}

/**
 * The commands the jobs process's bucket sweeps send (scan webhooks' and rollups' sets): left out of a request's
 * figures.
 */
const SWEEP_COMMANDS = new Set(['srandmember', 'hgetall']);

const sum = (values: Iterable<number>) => [...values].reduce((total, value) => total + value, 0);
const without = (counts: Map<string, number>, left: ReadonlySet<string>) =>
  new Map([...counts].filter(([name]) => !left.has(name)));

/**
 * The µs of the commands clients sent: a script's time (EVALSHA's usec) already holds the commands it ran, which
 * commandstats counts again under their own names.
 */
const clientSent = (micros: Map<string, number>, client: Map<string, number>) =>
  new Map([...micros].filter(([name]) => client.has(name)));

/** What the processes do with no request at all (sweeps of the bucket sets, queues' polling), per second. */
interface Background {
  commands: Map<string, number>;
  clientCommands: number;
  scriptCommands: number;
  redisMicros: number;
  redisCpuMicros: number;
  apiMicros: number;
}

const IDLE_SECONDS = 5;

async function background(port: number, server: Started): Promise<Background> {
  const wait = () => new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
  const before = await redisSnapshot(port);
  const apiBefore = cpuSeconds(server.child.pid);
  await wait();
  const after = await redisSnapshot(port);
  const apiMicros = ((cpuSeconds(server.child.pid) - apiBefore) * 1e6) / IDLE_SECONDS;
  const tally = await monitorTally(port);
  await wait();
  await tally.stop();
  const commands = new Map([...callsBetween(before, after)].map(([name, calls]) => [name, calls / IDLE_SECONDS]));
  return {
    commands,
    clientCommands: sum(tally.client.values()) / IDLE_SECONDS,
    scriptCommands: sum(tally.script.values()) / IDLE_SECONDS,
    redisMicros: sum(clientSent(callsBetween(before, after, 'micros'), tally.client).values()) / IDLE_SECONDS,
    redisCpuMicros: (after.cpuMicros - before.cpuMicros) / IDLE_SECONDS,
    apiMicros,
  };
}

/**
 * One kind of request, run twice: once for the calls and the µs Redis spent running them, once under MONITOR for who
 * sent them (it costs Redis CPU). `ignored`: commands of background sweeps running beside, left out.
 */
async function opCost(
  kind: string,
  port: number,
  server: Started,
  run: () => Promise<void>,
  ignored: ReadonlySet<string> = new Set(),
): Promise<OpCost> {
  const before = await redisSnapshot(port);
  const apiBefore = cpuSeconds(server.child.pid);
  await run();
  await settle();
  const apiMicros = ((cpuSeconds(server.child.pid) - apiBefore) * 1e6) / COUNT;
  const after = await redisSnapshot(port);
  const tally = await monitorTally(port);
  await run();
  await settle();
  await tally.stop();
  return {
    kind,
    commands: without(callsBetween(before, after), ignored),
    clientCommands: sum(without(tally.client, ignored).values()) / COUNT,
    scriptCommands: sum(without(tally.script, ignored).values()) / COUNT,
    redisMicros:
      sum(clientSent(without(callsBetween(before, after, 'micros'), ignored), tally.client).values()) / COUNT,
    redisCpuMicros: ignored.size === 0 ? (after.cpuMicros - before.cpuMicros) / COUNT : undefined,
    apiMicros,
    keysAdded: (after.keys - before.keys) / COUNT,
  };
}

async function createCode(server: Started, key: string): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/QRManager/codes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ target: 'https://example.com/landing', name: 'capacity' }),
  });
  if (res.status !== 201) throw new Error(`creating a code answered ${res.status}`);
  return ((await res.json()) as { slug: string }).slug;
}

async function runBatch(server: Started, key: string): Promise<void> {
  const base = `http://127.0.0.1:${server.port}`;
  const state = await untilFinished(base, key, await startBatch(base, key, COUNT), 120_000);
  if (['queued', 'running'].includes(state.status)) throw new Error('the capacity batch did not finish within 120 s');
}

/**
 * A process with no port of its own (workers/jobs.js or render.js) on the service's environment; stopped by SIGTERM.
 */
function startWorker(entry: string, env: NodeJS.ProcessEnv): { child: ChildProcess; stop(): Promise<void> } {
  const child = spawn(NODE, [join(import.meta.dirname, '..', '..', 'workers', entry)], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return {
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The four request kinds on one Redis node (REDIS_URL) with the jobs and render processes beside the API, one business
 * key.
 */
async function nodeCosts(): Promise<{ idle: Background; costs: OpCost[] } | undefined> {
  return withRedis((url) =>
    withService({ REDIS_URL: url, LOG_LEVEL: 'warn' }, async (service) => {
      const port = Number(new URL(url).port);
      return measureAll(port, service.server, service.keys[0]!, service.env);
    }),
  );
}

/**
 * Generates and scans with the API process alone (they need no other; the jobs process's sweeps would swamp their
 * figures), then the batch item with the jobs and render processes beside it, their idle work taken off.
 */
async function measureAll(
  port: number,
  server: Started,
  key: string,
  env: NodeJS.ProcessEnv,
): Promise<{ idle: Background; costs: OpCost[] }> {
  const slug = await createCode(server, key);
  const scan = () =>
    times(COUNT, async (i) => {
      const agent =
        `Mozilla/5.0 (iPhone; CPU iPhone OS 17_${i % 7}` + ` like Mac OS X) Mobile/15E148 bench-${sequence}-` + `${i}`;
      const res = await fetch(`http://127.0.0.1:${server.port}/r/${slug}`, {
        redirect: 'manual',
        headers: { 'user-agent': agent },
      });
      if (res.status !== 302) throw new Error(`scan answered ${res.status}`);
      await res.arrayBuffer();
    });
  const unique = () => times(COUNT, (i) => generate(server, key, `https://example.com/cap/${++sequence}/${i}`));
  const repeated = () => times(COUNT, () => generate(server, key, 'https://example.com/cap/repeated'));
  await repeated(); // the repeated content's first render and the key cache, out of the measured windows
  const costs = [
    await opCost('unique generate', port, server, unique),
    await opCost('repeated generate', port, server, repeated),
    await opCost('scan (302)', port, server, async () => {
      sequence++;
      await scan();
    }),
  ];
  const workers = [startWorker('jobs.js', env), startWorker('render.js', env)];
  try {
    await runBatch(server, key); // the workers' first batch (their connections, BullMQ's scripts), out of the figures
    const idle = await background(port, server);
    costs.push(await opCost('batch item', port, server, () => runBatch(server, key), SWEEP_COMMANDS));
    return { idle, costs };
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
  }
}

function nodeTable({ idle, costs }: { idle: Background; costs: OpCost[] }): string {
  const top = (commands: Map<string, number>, per: number) =>
    [...commands]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 6)
      .map(([name, calls]) => `${name.toUpperCase()} ${(calls / per).toFixed(1)}`)
      .join(', ');
  const total = (commands: Map<string, number>) => [...commands.values()].reduce((sum, calls) => sum + calls, 0);
  const lines = costs.map(
    (c) =>
      `| ${c.kind} | ${c.clientCommands.toFixed(1)} | ${c.scriptCommands.toFixed(1)} | ` +
      `${(total(c.commands) / COUNT).toFixed(1)} | ` +
      (`${top(c.commands, COUNT)} | ${c.redisMicros.toFixed(0)} | ${c.redisCpuMicros?.toFixed(0) ?? '—'} | ` +
        `${c.apiMicros.toFixed(0)} | `) +
      `${c.keysAdded.toFixed(2)} |`,
  );
  const idleLine =
    `| no requests: the jobs and render processes idle, per second | ${idle.clientCommands.toFixed(0)} | ` +
    `${idle.scriptCommands.toFixed(0)} | ${total(idle.commands).toFixed(0)} | ` +
    (`${top(idle.commands, 1)} | ${idle.redisMicros.toFixed(0)} | ${idle.redisCpuMicros.toFixed(0)} | ` +
      `${idle.apiMicros.toFixed(0)} | — |`);
  return [
    `One Redis node (REDIS_URL), ${COUNT} requests of each kind, ${CONCURRENCY} at a time: generates and scans ` +
      `on the API ` +
      ('process alone, batch items with the jobs and render processes beside it (the jobs process sweeps bucket ' +
        'sets: its ') +
      (`SRANDMEMBER and HGETALL are left out of the batch row and given in the last, idle row, measured over ` +
        `${IDLE_SECONDS} s). `) +
      'Per request; Redis µs is commandstats time of the commands clients sent (a script holds those it ran):',
    '',
    '| request | commands sent (round trips) | commands run by scripts | commands in all | most called | Redis ' +
      'µs running them | Redis CPU µs | API CPU µs | keys added |',
    '|---|---|---|---|---|---|---|---|---|',
    ...lines,
    idleLine,
  ].join('\n');
}

/** Two API instances on a 3 + 3 cluster, unique generates over 25 accounts: keys and commands per master. */
async function clusterSpread(): Promise<string> {
  const cluster = await startRedisCluster();
  const dataDir = mkdtempSync(join(tmpdir(), 'qrm-bench-cluster-'));
  const env = { ...process.env, QR_DATA_DIR: dataDir, LOG_LEVEL: 'warn', REDIS_CLUSTER_NODES: cluster.seeds };
  const servers: Started[] = [];
  try {
    const keys = Array.from(
      { length: CLUSTER_ACCOUNTS },
      (_, a) => createAccountKeys(env, `cap${a}@example.com`, 'business', 1)[0]!,
    );
    servers.push(await startApi(env), await startApi(env));
    const masters = await cluster.masters();
    const before = await Promise.all(masters.map((port) => redisSnapshot(port)));
    const requests = COUNT * 4;
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < requests) {
          const i = next++;
          await generate(servers[i % 2]!, keys[i % CLUSTER_ACCOUNTS]!, `https://example.com/cap/cluster/${i}`);
        }
      }),
    );
    await settle();
    const after = await Promise.all(masters.map((port) => redisSnapshot(port)));
    const commands = masters.map((_, m) =>
      [...callsBetween(before[m]!, after[m]!).values()].reduce((sum, calls) => sum + calls, 0),
    );
    const keyCounts = after.map((snapshot) => snapshot.keys);
    const share = (values: number[], i: number) =>
      `${((100 * values[i]!) / values.reduce((a, b) => a + b, 0)).toFixed(0)}%`;
    const spread = (values: number[]) => (Math.max(...values) / Math.max(1, Math.min(...values))).toFixed(2);
    return [
      `Two API processes on a local 3-master + 3-replica Redis Cluster, ${requests} unique generates (` +
        `${CLUSTER_ACCOUNTS} business ` +
        `accounts, one key each, the instances alternating):`,
      '',
      '| master | keys | share | commands | share |',
      '|---|---|---|---|---|',
      ...masters.map(
        (port, m) => `| ${m + 1} | ${keyCounts[m]} | ${share(keyCounts, m)} | ${commands[m]} | ${share(commands, m)} |`,
      ),
      '',
      `max/min across masters: keys ${spread(keyCounts)}, commands ${spread(commands)}.`,
    ].join('\n');
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await cluster.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export const capacityScenario: BenchScenario = {
  ids: ['capacity', 'k-node', 'k-cluster'],
  run: async () => {
    const costs = await nodeCosts();
    const node = costs ? nodeTable(costs) : 'Skipped: redis-server is not installed.';
    const cluster = await clusterSpread();
    return {
      sections: {
        capacity: `${node}\n\n${cluster}\n\nAccounts in the single-node rows: ${ACCOUNTS} (the first one's key).`,
      },
    };
  },
};
