// The render process (`npm run render`): takes batch chunks from the BullMQ render queue and renders them on its own
// pool; scaled apart from the API and the jobs process.
import pino from 'pino';
import { createRenderProcess } from './render-process.js';
import { requireRedis, runProcess, stopOnSignals } from '../src/entries/process-lifecycle.js';

runProcess(
  'qr-manager render',
  async (config) => {
    const log = pino({ level: config.logLevel, base: { process: 'render' } });
    const render = await createRenderProcess(config, log);
    log.info({ threads: render.threads }, 'render worker started');
    stopOnSignals({
      log,
      stopping: { message: 'render worker shutting down: finishing the running chunk' },
      stopped: 'render worker shutdown complete',
      failed: 'render worker shutdown failed',
      timeoutMs: config.shutdownTimeoutMs,
      close: () => render.close(),
    });
  },
  requireRedis('required by the render process (without it the API process renders batches itself)'),
);
