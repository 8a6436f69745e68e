// The jobs process (`npm run jobs`, or `npm run worker`): runs the background jobs from BullMQ, scaled apart from the
// API; closes gracefully on SIGTERM.
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { createJobsProcess } from './jobs-process.js';
import { requireRedis, runProcess, stopOnSignals } from '../src/entries/process-lifecycle.js';

/** Touched every 15 s while healthy; docker-compose.yml's health check reads it. */
const HEARTBEAT_FILE = join(tmpdir(), 'qrm-worker-heartbeat');

// Its log lines and messages keep the name operators search for (`worker started`, the compose service `worker`).
runProcess(
  'qr-manager worker',
  async (config) => {
    const log = pino({ level: config.logLevel, base: { process: 'worker' } });
    const jobs = await createJobsProcess(config, log);

    // The container health check reads this: fresh only while the jobs process runs and Redis answers it.
    const beat = async () => {
      if (!jobs.isRunning()) return;
      await jobs.probes.redis?.();
      await writeFile(HEARTBEAT_FILE, String(Date.now()));
    };
    const heartbeat = setInterval(() => void beat().catch(() => undefined), 15_000);
    heartbeat.unref();

    // Before 'worker started' and the first beat: a SIGTERM sent as soon as the process says it runs must
    // close it gracefully, not end it at once (the first beat waits on Redis and the disk).
    stopOnSignals({
      log,
      stopping: { message: 'worker shutting down: finishing the running job' },
      stopped: 'worker shutdown complete',
      failed: 'worker shutdown failed',
      timeoutMs: config.shutdownTimeoutMs,
      beforeClose: () => clearInterval(heartbeat),
      close: () => jobs.close(),
    });
    log.info({ jobs: jobs.jobs.map((j) => `${j.name} (${j.pattern} UTC)`) }, 'worker started');
    await beat().catch(() => undefined);
  },
  requireRedis('required by the worker (without it the API process runs the jobs itself)'),
);
