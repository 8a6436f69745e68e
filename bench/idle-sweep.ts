// What one idle sweep of the 16,384 slot buckets costs Redis: a command per bucket, or one script reading the existing.
import {
  closeRedisClient,
  createRedisClient,
  settleConnection,
  type RedisClient,
} from '../src/adapters/redis/connection.js';
import { eachBucket, nonEmptyBuckets } from '../src/adapters/redis/slot-tags.js';
import { startRedisCluster } from '../test/helpers/redis-cluster.js';
import { withRedis } from './harness.js';
import { redisSnapshot } from './redis-info.js';

export interface SweepCost {
  way: string;
  /** Redis CPU (used_cpu_user + sys) per sweep, µs: command parsing and replies included. */
  redisMicros: number;
  /** The sweeping process's wall time per sweep, ms. */
  millis: number;
}

const keyOf = (tag: string) => `qrm:scan-events:${tag}:accounts`;

/** The two ways turn about, `sweeps` each a round, so the machine's drift falls on both; 16 buckets hold work. */
async function compare(
  client: RedisClient,
  ports: number[],
  where: string,
  rounds: number,
  sweeps: number,
): Promise<SweepCost[]> {
  const ways: Record<string, () => Promise<unknown>> = {
    'a command per bucket (pipelines)': () =>
      eachBucket(client, (pipeline, tag) => pipeline.srandmember(keyOf(tag), 100)),
    'one script per master, existing buckets only': () => nonEmptyBuckets(client, keyOf, { members: 100 }),
  };
  const totals = new Map(Object.keys(ways).map((way) => [way, { cpu: 0, wall: 0 }]));
  for (let slot = 0; slot < 16; slot++) await client.sadd(keyOf(`{b${slot}}`), `acc_${slot}`);
  const redisCpu = async () =>
    (await Promise.all(ports.map((port) => redisSnapshot(port)))).reduce((sum, s) => sum + s.cpuMicros, 0);
  for (let round = 0; round < rounds; round++) {
    for (const [way, sweep] of Object.entries(ways)) {
      const before = await redisCpu();
      const started = performance.now();
      for (let i = 0; i < sweeps; i++) await sweep();
      const wall = performance.now() - started;
      const total = totals.get(way)!;
      total.cpu += (await redisCpu()) - before;
      total.wall += wall;
    }
  }
  const n = rounds * sweeps;
  return [...totals].map(([way, { cpu, wall }]) => ({
    way: `${where}: ${way}`,
    redisMicros: Math.round(cpu / n),
    millis: Math.round((wall / n) * 10) / 10,
  }));
}

/** One Redis, then a local 3-master cluster (its masters' CPU summed). */
export async function idleSweepBench(rounds = 5, sweeps = 20): Promise<SweepCost[]> {
  const costs: SweepCost[] = [];
  await withRedis(async (url) => {
    const client = createRedisClient(url, { name: 'idle-sweep-bench', commandTimeoutMs: 10_000 });
    await settleConnection(client);
    try {
      costs.push(...(await compare(client, [Number(new URL(url).port)], 'one Redis', rounds, sweeps)));
    } finally {
      await closeRedisClient(client);
    }
  });
  const cluster = await startRedisCluster();
  const client = createRedisClient(
    { cluster: { nodes: (await cluster.masters()).map((port) => ({ host: '127.0.0.1', port })), tls: false } },
    { name: 'idle-sweep-bench', commandTimeoutMs: 10_000 },
  );
  try {
    await settleConnection(client);
    costs.push(...(await compare(client, await cluster.masters(), 'cluster', rounds, sweeps)));
  } finally {
    await closeRedisClient(client);
    await cluster.destroy();
  }
  return costs;
}

// npx tsx bench/idle-sweep.ts (BENCH_ROUNDS, BENCH_SWEEPS)
if (import.meta.url === `file://${process.argv[1]}`) {
  const costs = await idleSweepBench(Number(process.env.BENCH_ROUNDS ?? 5), Number(process.env.BENCH_SWEEPS ?? 20));
  console.table(costs);
}
