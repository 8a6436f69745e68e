// What every process entry does around its work: load config or exit 1 saying why (qrm too), and, long-running ones,
// close once on SIGTERM/SIGINT within a deadline.
import { ConfigError, loadConfig, type Config, type RedisTarget } from '../config.js';

interface LifecycleLog {
  info(fields: object, message: string): void;
  info(message: string): void;
  error(fields: object, message: string): void;
}

/**
 * The configuration from the environment, for every entry (qrm too): a configuration mistake (a ConfigError, from
 * loadConfig or from `requires`) prints `<label>: <why>`, naming the variable, and exits 1 without a stack.
 */
export function configOrExit<C extends Config = Config>(label: string, requires?: (config: Config) => C): C {
  try {
    const loaded = loadConfig(process.env);
    return requires ? requires(loaded) : (loaded as C);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${label}: ${error.message}\n`);
    process.exit(1);
  }
}

/**
 * Runs a long-running process entry: its configuration (configOrExit), then `main`; a failure to start prints why and
 * exits 1.
 */
export function runProcess<C extends Config = Config>(
  label: string,
  main: (config: C) => Promise<void>,
  requires?: (config: Config) => C,
): void {
  main(configOrExit(label, requires)).catch((error: unknown) => {
    process.stderr.write(`${label}: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}

/**
 * REDIS_URL or REDIS_CLUSTER_NODES, for the processes that exist only beside Redis; `why` says what the API process
 * does without them.
 */
export function requireRedis(why: string): (config: Config) => Config & { redis: RedisTarget } {
  return (config) => {
    if (!config.redis) throw new ConfigError(`REDIS_URL or REDIS_CLUSTER_NODES: ${why}`);
    return { ...config, redis: config.redis };
  };
}

export interface StopOnSignalsOptions {
  log: LifecycleLog;
  /** Logged when the first signal arrives, with the signal added to its fields. */
  stopping: { message: string; fields?: object };
  /** Logged once closed (`shutdown complete`); `failed` when closing threw. */
  stopped: string;
  failed: string;
  timeoutMs: number;
  /** Runs first, synchronously (stop a heartbeat, turn /readyz to 503). */
  beforeClose?: () => void;
  close(): Promise<void>;
}

/**
 * On SIGTERM or SIGINT: close once, then exit 0 — or 1 when closing fails or outlives the deadline (a hung dependency
 * must not keep the process alive).
 */
export function stopOnSignals(options: StopOnSignalsOptions): void {
  const { log } = options;
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    options.beforeClose?.();
    log.info({ signal, ...options.stopping.fields }, options.stopping.message);
    const deadline = setTimeout(() => {
      log.error({ timeoutMs: options.timeoutMs }, 'shutdown deadline passed; exiting');
      process.exit(1);
    }, options.timeoutMs);
    deadline.unref();
    options.close().then(
      () => {
        log.info(options.stopped);
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, options.failed);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}
