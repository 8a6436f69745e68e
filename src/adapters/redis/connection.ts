// Redis clients for the API side, on one Redis or a Redis Cluster: fail fast (no offline queue, short timeouts),
// reconnect forever, log outages once.
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { RedisTarget } from '../../config.js';
import { SILENT_LOG, type AdapterLog } from '../adapter-log.js';

export type { RedisTarget } from '../../config.js';

/** What every Redis user takes: a client of one Redis or of a Redis Cluster (same commands, same key layout). */
export type RedisClient = Redis | Cluster;

export type { AdapterLog } from '../adapter-log.js';
export { SILENT_LOG } from '../adapter-log.js';

export interface RedisClientOptions {
  /** Names the client in logs and in Redis CLIENT LIST. */
  name: string;
  log?: AdapterLog;
  /** Per-command ceiling; past it the command fails as an outage (default 1000 ms). */
  commandTimeoutMs?: number;
  /** Subscribers queue their SUBSCRIBE until connected; command clients refuse at once. */
  subscriber?: boolean;
}

/** A REDIS_URL string stands for `{ url }` (tests and tools that only ever run on one Redis). */
function targetOf(target: RedisTarget | string): RedisTarget {
  return typeof target === 'string' ? { url: target } : target;
}

/** The per-connection options of a client, on one Redis or on every node of a cluster. */
function connectionOptions(options: RedisClientOptions): RedisOptions {
  return {
    connectionName: options.name,
    enableOfflineQueue: options.subscriber === true,
    connectTimeout: 1_000,
    commandTimeout: options.subscriber ? undefined : (options.commandTimeoutMs ?? 1_000),
    maxRetriesPerRequest: options.subscriber ? null : 1,
    // A command in flight when the connection drops is reported as failed, never silently sent twice.
    autoResendUnfulfilledCommands: false,
    // Subscribers subscribe again themselves on every 'ready' (and catch its failure); ioredis's own resubscribe has no
    // catch, so a client closed while it is in flight (Redis back, service stopping) left an unhandled rejection.
    autoResubscribe: false,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  };
}

/**
 * A client that never makes a request wait for Redis: while it is down every command fails at once
 * (no offline queue, one retry at most), a hung server is cut off by the command timeout, and the
 * client keeps reconnecting in the background so the service recovers by itself. On a cluster the
 * client follows MOVED and ASK itself; while a master is down its slots fail at once (503) until a
 * replica is promoted and the slot map refreshed.
 */
export function createRedisClient(target: RedisTarget | string, options: RedisClientOptions): RedisClient {
  const log = options.log ?? SILENT_LOG;
  const where = targetOf(target);
  const client: RedisClient =
    'url' in where ? new Redis(where.url, connectionOptions(options)) : createCluster(where.cluster, options);
  let down = false;
  client.on('error', (err: Error) => {
    if (down) return;
    down = true;
    log.warn({ err, client: options.name }, 'redis unreachable; answering 503 until it is back');
  });
  client.on('ready', () => {
    if (!down) return;
    down = false;
    log.info({ client: options.name }, 'redis reachable again');
  });
  return client;
}

function createCluster(
  seeds: Extract<RedisTarget, { cluster: unknown }>['cluster'],
  options: RedisClientOptions,
): Cluster {
  const { retryStrategy: _perNode, ...perNode } = connectionOptions(options);
  return new Cluster(seeds.nodes, {
    redisOptions: {
      ...perNode,
      ...(seeds.username ? { username: seeds.username } : {}),
      ...(seeds.password ? { password: seeds.password } : {}),
      ...(seeds.tls ? { tls: {} } : {}),
    },
    enableOfflineQueue: options.subscriber === true,
    // Every read and write goes to the slot's master: the meter's check-and-count must see its own last write.
    scaleReads: 'master',
    clusterRetryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
    // A slot whose master is gone fails at once (the caller answers 503) rather than holding the request.
    retryDelayOnClusterDown: 100,
    retryDelayOnFailover: 100,
    retryDelayOnTryAgain: 100,
    maxRedirections: 16,
    slotsRefreshTimeout: 1_000,
    slotsRefreshInterval: 5_000,
  });
}

/** The options BullMQ's own connections take: workers block (no per-request retry limit), the API side fails fast. */
export function bullConnection(target: RedisTarget | string, role: 'worker' | 'producer'): RedisClient {
  const where = targetOf(target);
  const perNode: RedisOptions =
    role === 'worker'
      ? { maxRetriesPerRequest: null }
      : { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 1_000 };
  if ('url' in where) return new Redis(where.url, perNode);
  const { enableOfflineQueue, ...nodeOptions } = perNode;
  return new Cluster(where.cluster.nodes, {
    redisOptions: {
      ...nodeOptions,
      ...(where.cluster.username ? { username: where.cluster.username } : {}),
      ...(where.cluster.password ? { password: where.cluster.password } : {}),
      ...(where.cluster.tls ? { tls: {} } : {}),
    },
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
    scaleReads: 'master',
    clusterRetryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  });
}

/** "ok", or what is wrong with the cluster (CLUSTER INFO's state and slots); one Redis answers PING. */
export async function redisHealth(client: RedisClient): Promise<void> {
  if (!(client instanceof Cluster)) {
    await client.ping();
    return;
  }
  const info = await client.cluster('INFO');
  const state = /cluster_state:(\w+)/.exec(info)?.[1];
  if (state !== 'ok') throw new Error(`redis cluster state ${state ?? 'unknown'}`);
  const masters = client.nodes('master');
  if (masters.length === 0) throw new Error('redis cluster: no master reachable');
  await Promise.all(masters.map((node) => node.ping()));
}

/** Resolves when the client is ready, or after `timeoutMs` either way (a service may start while Redis is down). */
export async function settleConnection(client: RedisClient, timeoutMs = 2_000): Promise<boolean> {
  if (client.status === 'ready') return true;
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    client.once('ready', onReady);
  });
}

/** Closes gracefully (QUIT) when connected, at once otherwise. */
export async function closeRedisClient(client: RedisClient): Promise<void> {
  if (client.status === 'end') return;
  if (client.status === 'ready') {
    await client.quit().catch(() => client.disconnect());
    return;
  }
  client.disconnect();
}

const OUTAGE_REPLIES = /^(LOADING|BUSY|MISCONF|READONLY|OOM|MASTERDOWN|NOREPLICAS|CLUSTERDOWN|TRYAGAIN|NOTREADY)\b/;
const OUTAGE_MESSAGES =
  /Stream isn't writeable|Connection is closed|Command timed out|Cluster isn't ready|Failed to refresh slots cache|None of startup nodes|Too many Cluster redirections|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN/;

/**
 * True for failures of Redis itself (down, unreachable, loading, out of memory); false for bugs such as a Lua error.
 */
export function isRedisOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  if (error.name === 'ReplyError') return OUTAGE_REPLIES.test(error.message);
  return OUTAGE_MESSAGES.test(error.message);
}

/** True when the command certainly never reached Redis (so it cannot have taken effect). */
export function neverSent(error: unknown): boolean {
  return error instanceof Error && /Stream isn't writeable|Cluster isn't ready/.test(error.message);
}
