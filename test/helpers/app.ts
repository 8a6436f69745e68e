// Builds the app for HTTP tests: real SQLite (in memory or on disk) and a real render pool, plus account/key helpers.
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { createSqliteStores, type Adapters, type StoreAdapters } from '../../src/adapters/embedded.js';
import { rendererProbe } from '../../src/adapters/render/create-renderer.js';
import { RenderPool, type RenderPoolOptions } from '../../src/adapters/render/render-pool.piscina.js';
import { createStores } from '../../src/adapters/select.js';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { PlanId } from '../../src/domain/plan-catalogue.js';
import type { Renderer } from '../../src/domain/ports/renderer.js';
import { createLocalAccount } from '../../src/services/accounts.js';
import { issueKey } from '../../src/services/api-keys.js';

export interface TestApp {
  app: FastifyInstance;
  stores: StoreAdapters;
  config: Config;
  logs: string[];
  clock: { now: Date };
  /** A new account on the plan, with one key; returns the secret and ids. */
  newCaller(plan?: PlanId): Promise<{ key: string; accountId: string; keyId: string }>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  dataDir?: string;
  env?: Record<string, string>;
  renderer?: Renderer;
  pool?: RenderPoolOptions;
  now?: Date;
  /** Production mode's Redis layer (metering, credential cache, last-used log) over the SQLite store. */
  redis?: { url: string; keyPrefix: string };
  /** Stores made by the test (e.g. over a SQLite connection it can fill up); the app still closes them. */
  stores?: StoreAdapters;
}

let callerSeq = 0;

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  // Suites sign in and create keys from one address many times a minute; the abuse tests set the portal limits they test.
  const config = loadConfig({ LOG_LEVEL: 'info', PORTAL_SIGNIN_PER_MINUTE: '10000', PORTAL_KEY_CREATIONS_PER_HOUR: '10000', ...options.env });
  const stores =
    options.stores ??
    (options.redis
      ? await createStores({ dataDir: options.dataDir ?? ':memory:', redisUrl: options.redis.url, mongodbUrl: undefined }, { redisKeyPrefix: options.redis.keyPrefix })
      : createSqliteStores(options.dataDir ?? ':memory:'));
  const renderer = options.renderer ?? new RenderPool({ threads: 1, ...options.pool });
  const adapters: Adapters = { ...stores, renderer, probes: { ...stores.probes, renderer: rendererProbe(renderer) }, close: async () => {} };
  const clock = { now: options.now ?? new Date() };
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  const app = await buildApp(config, { adapters, clock: () => clock.now, logStream });
  const deps = { ...stores, keyPepper: config.keyPepper, clock: () => clock.now };
  return {
    app,
    stores,
    config,
    logs,
    clock,
    async newCaller(plan: PlanId = 'free') {
      const account = await createLocalAccount(deps, `dev${++callerSeq}-${Date.now()}@example.com`, plan);
      const issued = await issueKey(deps, account.id, 'test');
      return { key: issued.secret, accountId: account.id, keyId: issued.key.id };
    },
    async close() {
      await app.close();
      await renderer.close();
      await stores.close();
    },
  };
}

export const GENERATE_URL = '/api/v1/QRManager/generate';

export function generate(app: FastifyInstance, key: string | undefined, body: unknown) {
  return app.inject({
    method: 'POST',
    url: GENERATE_URL,
    headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'x-api-key': key }) },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}
