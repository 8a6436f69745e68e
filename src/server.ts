// The process entry: config → buildApp → listen → graceful close on SIGTERM/SIGINT. The only file that touches process.
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`qr-manager: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }

  const app = await buildApp(config);
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal, drainMs: config.shutdownDrainMs }, 'shutting down: draining, then no new connections, finishing in-flight requests');
    // A hung dependency must not keep the process alive past the deadline.
    const deadline = setTimeout(() => {
      app.log.error({ timeoutMs: config.shutdownTimeoutMs }, 'shutdown deadline passed; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    deadline.unref();
    // Drain first: requests already on the wire are read and answered, and /readyz turns 503 so balancers move on.
    app.lifecycle.phase = 'draining';
    const drained = new Promise((resolve) => setTimeout(resolve, config.shutdownDrainMs));
    drained
      .then(() => app.close())
      .then(
        () => {
          app.log.info('shutdown complete');
          process.exit(0);
        },
        (err: unknown) => {
          app.log.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
}

main().catch((error: unknown) => {
  process.stderr.write(`qr-manager: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
