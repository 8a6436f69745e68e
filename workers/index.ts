// The worker process (`npm run worker`): runs the background jobs from BullMQ, scaled apart from the API; closes gracefully on SIGTERM.
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { exitGracefullyOnSignals } from './graceful-exit.js';
import { createWorker } from '../src/composition/worker.js';
import { ConfigError, loadConfig, type Config } from '../src/config.js';

/** Touched every 15 s while healthy; docker-compose.yml's health check reads it. */
const HEARTBEAT_FILE = join(tmpdir(), 'qrm-worker-heartbeat');

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env);
    if (!config.redisUrl) throw new ConfigError('REDIS_URL: required by the worker (without it the API process runs the jobs itself)');
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`qr-manager worker: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const redisUrl = config.redisUrl;
  const log = pino({ level: config.logLevel, base: { process: 'worker' } });

  const worker = await createWorker({ ...config, redisUrl }, log);

  // The container health check reads this: fresh only while the worker runs and Redis answers it.
  const beat = async () => {
    if (!worker.isRunning()) return;
    await worker.probes.redis?.();
    await writeFile(HEARTBEAT_FILE, String(Date.now()));
  };
  const heartbeat = setInterval(() => void beat().catch(() => undefined), 15_000);
  heartbeat.unref();

  // Before 'worker started' and the first beat: a SIGTERM sent as soon as the worker says it runs must
  // close it gracefully, not end it at once (the first beat waits on Redis and the disk).
  exitGracefullyOnSignals({
    log,
    name: 'worker',
    finishing: 'the running job',
    timeoutMs: config.shutdownTimeoutMs,
    beforeClose: () => clearInterval(heartbeat),
    close: () => worker.close(),
  });
  log.info({ jobs: worker.jobs.map((j) => `${j.name} (${j.pattern} UTC)`) }, 'worker started');
  await beat().catch(() => undefined);
}

main().catch((error: unknown) => {
  process.stderr.write(`qr-manager worker: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
