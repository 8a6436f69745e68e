// The render process (`npm run render`): takes batch chunks from the BullMQ render queue and renders them on its own pool; scaled apart from the API and the worker.
import pino from 'pino';
import { exitGracefullyOnSignals } from './graceful-exit.js';
import { createRenderProcess } from '../src/composition/render.js';
import { ConfigError, loadConfig, type Config } from '../src/config.js';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env);
    if (!config.redisUrl) throw new ConfigError('REDIS_URL: required by the render process (without it the API process renders batches itself)');
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`qr-manager render: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const log = pino({ level: config.logLevel, base: { process: 'render' } });
  const render = await createRenderProcess({ ...config, redisUrl: config.redisUrl }, log);
  log.info({ threads: render.threads }, 'render worker started');

  exitGracefullyOnSignals({ log, name: 'render worker', finishing: 'the running chunk', timeoutMs: config.shutdownTimeoutMs, close: () => render.close() });
}

main().catch((error: unknown) => {
  process.stderr.write(`qr-manager render: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
