// The worker processes' shutdown: on SIGTERM or SIGINT, close once, then exit 0 — or 1 on failure or past the deadline.
import type { Logger } from 'pino';

export interface GracefulExitOptions {
  log: Logger;
  /** Which process, for the log lines (`worker`, `render worker`). */
  name: string;
  /** What it finishes before exiting, for the log line (`the running job`). */
  finishing: string;
  timeoutMs: number;
  /** Runs first, synchronously (e.g. stop a heartbeat). */
  beforeClose?: () => void;
  close(): Promise<void>;
}

export function exitGracefullyOnSignals(options: GracefulExitOptions): void {
  const { log, name } = options;
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    options.beforeClose?.();
    log.info({ signal }, `${name} shutting down: finishing ${options.finishing}`);
    const deadline = setTimeout(() => {
      log.error({ timeoutMs: options.timeoutMs }, 'shutdown deadline passed; exiting');
      process.exit(1);
    }, options.timeoutMs);
    deadline.unref();
    options.close().then(
      () => {
        log.info(`${name} shutdown complete`);
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, `${name} shutdown failed`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}
