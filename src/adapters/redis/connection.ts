// Redis clients for the API side: fail fast (no offline queue, short timeouts), reconnect forever, log outages once.
import { Redis } from 'ioredis';
import { SILENT_LOG, type AdapterLog } from '../adapter-log.js';

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

/**
 * A client that never makes a request wait for Redis: while it is down every command fails at once
 * (no offline queue, one retry at most), a hung server is cut off by the command timeout, and the
 * client keeps reconnecting in the background so the service recovers by itself.
 */
export function createRedisClient(url: string, options: RedisClientOptions): Redis {
  const log = options.log ?? SILENT_LOG;
  const client = new Redis(url, {
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
  });
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

/** Resolves when the client is ready, or after `timeoutMs` either way (a service may start while Redis is down). */
export async function settleConnection(client: Redis, timeoutMs = 2_000): Promise<boolean> {
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
export async function closeRedisClient(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  if (client.status === 'ready') {
    await client.quit().catch(() => client.disconnect());
    return;
  }
  client.disconnect();
}

const OUTAGE_REPLIES = /^(LOADING|BUSY|MISCONF|READONLY|OOM|MASTERDOWN|NOREPLICAS|CLUSTERDOWN|TRYAGAIN|NOTREADY)\b/;
const OUTAGE_MESSAGES =
  /Stream isn't writeable|Connection is closed|Command timed out|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN/;

/** True for failures of Redis itself (down, unreachable, loading, out of memory); false for bugs such as a Lua error. */
export function isRedisOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  if (error.name === 'ReplyError') return OUTAGE_REPLIES.test(error.message);
  return OUTAGE_MESSAGES.test(error.message);
}

/** True when the command certainly never reached Redis (so it cannot have taken effect). */
export function neverSent(error: unknown): boolean {
  return error instanceof Error && /Stream isn't writeable/.test(error.message);
}
