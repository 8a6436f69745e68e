// The API process (`npm start`): config → buildApp → listen; on SIGTERM/SIGINT drains, then closes gracefully.
import { setTimeout as sleep } from 'node:timers/promises';
import { buildApp } from '../app.js';
import { runProcess, stopOnSignals } from './process-lifecycle.js';

runProcess('qr-manager', async (config) => {
  const app = await buildApp(config);
  stopOnSignals({
    log: app.log,
    stopping: {
      message: 'shutting down: draining, then no new connections, finishing in-flight requests',
      fields: { drainMs: config.shutdownDrainMs },
    },
    stopped: 'shutdown complete',
    failed: 'shutdown failed',
    timeoutMs: config.shutdownTimeoutMs,
    // Drain first: requests already on the wire are read and answered, and /readyz turns 503 so balancers move on.
    beforeClose: () => {
      app.lifecycle.phase = 'draining';
    },
    close: async () => {
      await sleep(config.shutdownDrainMs);
      await app.close();
    },
  });
  await app.listen({ port: config.port, host: config.host }).catch((error: unknown) => {
    // The one start-up failure a newcomer meets first: say which setting moves it.
    if ((error as { code?: string }).code !== 'EADDRINUSE') throw error;
    throw new Error(
      `port ${config.port} on ${config.host} is already in use: stop what holds it, or start on another with ` +
        `PORT (e.g. PORT=3001)`,
    );
  });
  if (!config.publicUrl) {
    app.log.warn(
      { addresses: app.addresses() },
      'PUBLIC_URL is not set: dynamic codes encode short URLs on the address this server listens on (never the ' +
        'request Host); set PUBLIC_URL to the origin users reach',
    );
  }
});
