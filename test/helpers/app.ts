// Builds the app for HTTP tests through the production composition root (real SQLite or Redis, the configured render
// path), plus account/key helpers.
import { Writable } from 'node:stream';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { StoreAdapters } from '../../src/adapters/contract.js';
import { buildApp } from '../../src/app.js';
import { createStores } from '../../src/composition/stores.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { PlanCatalogue, PlanId } from '../../src/domain/plan-catalogue.js';
import { loadPlanCatalogue } from '../../src/plans-file.js';
import type { ApiOverrides } from '../../src/composition/api.js';
import { createLocalAccount } from '../../src/services/accounts.js';
import { issueKey } from '../../src/services/api-keys.js';
import { startDnsServer } from './dns-server.js';
import { responseValidatorFor, type OpenApiDocument, type ResponseValidator } from './openapi-validator.js';

export interface TestApp {
  app: FastifyInstance;
  stores: StoreAdapters;
  config: Config;
  /** The catalogue the app serves with (QR_PLANS_FILE in `env`, or the built-in plans). */
  plans: PlanCatalogue;
  logs: string[];
  /**
   * Log lines saying a request was answered twice (Fastify's FST_ERR_REP_ALREADY_SENT, or ERR_HTTP_HEADERS_SENT); each
   * is a bug.
   */
  doubleReplies: string[];
  /** Throws when any request so far was answered twice, and forgets them. */
  assertNoDoubleReply(): void;
  clock: { now: Date };
  /** A new account on the plan, with one key; returns the secret and ids. */
  newCaller(plan?: PlanId): Promise<{ key: string; accountId: string; keyId: string }>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  dataDir?: string;
  /**
   * Environment on top of the tests' defaults (one render thread, portal limits out of the way); the config comes from
   * it as in production.
   */
  env?: Record<string, string>;
  /**
   * Render-pool settings only a fault test needs (a thread that crashes, a small heap); the pipeline is otherwise
   * production's.
   */
  renderPool?: ApiOverrides['renderPool'];
  now?: Date;
  /**
   * Production mode: REDIS_URL (or, with `clusterNodes`, REDIS_CLUSTER_NODES), with this suite's own key prefix, over
   * the
   * SQLite store; `cacheTtlMs` replaces the per-instance caches' TTL.
   */
  redis?: { url: string; keyPrefix: string; cacheTtlMs?: number; clusterNodes?: string };
  /** Stores made by the test (e.g. over a SQLite connection it can fill up); the app still closes them. */
  stores?: StoreAdapters;
  /**
   * The custom-domain check, pointed at where the test's server listens (a real HTTP request, with the domain's Host).
   */
  domainProbe?: ApiOverrides['domainProbe'];
  /** Changes the document answers are checked against: only the contract test's deliberate drift uses it. */
  alterDocument?: (document: OpenApiDocument) => void;
}

let callerSeq = 0;

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  // Custom domains' TXT proofs are asked of a DNS server on loopback that knows no name, unless the test runs its own.
  const dns = options.env?.DNS_SERVERS === undefined ? await startDnsServer() : undefined;
  const config = loadConfig({
    LOG_LEVEL: 'info',
    // Suites sign in and create keys from one address many times a minute; the abuse tests set the portal limits they
    // test.
    PORTAL_SIGNIN_PER_MINUTE: '10000',
    PORTAL_KEY_CREATIONS_PER_HOUR: '10000',
    RENDER_THREADS: '1',
    // On a shared machine the test process's event loop stalls now and then; shedding would turn those moments into
    // 503s in suites about something else. Load shedding has its own tests, which set what they test.
    MAX_EVENT_LOOP_DELAY_MS: '0',
    QR_DATA_DIR: options.dataDir ?? ':memory:',
    ...(dns ? { DNS_SERVERS: dns.address } : {}),
    ...(options.redis
      ? options.redis.clusterNodes
        ? { REDIS_CLUSTER_NODES: options.redis.clusterNodes }
        : { REDIS_URL: options.redis.url }
      : {}),
    ...options.env,
  });
  // Built here, by the production function, only so the test can reach them; the app closes them.
  const stores =
    options.stores ??
    (await createStores(
      config,
      options.redis
        ? {
            redisKeyPrefix: options.redis.keyPrefix,
            ...(options.redis.cacheTtlMs ? { cacheTtlMs: options.redis.cacheTtlMs } : {}),
          }
        : {},
    ));
  const clock = { now: options.now ?? new Date() };
  const logs: string[] = [];
  const doubleReplies: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _enc, done) {
      const line = chunk.toString('utf8');
      logs.push(line);
      if (isDoubleReply(line)) doubleReplies.push(line);
      done();
    },
  });
  const assertNoDoubleReply = () => {
    if (doubleReplies.length === 0) return;
    const seen = doubleReplies.splice(0);
    throw new Error(`${seen.length} request(s) were answered twice; the first log line: ${seen[0]}`);
  };
  const overrides = {
    stores,
    ...(options.renderPool ? { renderPool: options.renderPool } : {}),
    ...(options.domainProbe ? { domainProbe: options.domainProbe } : {}),
  };
  const app = await buildApp(config, { overrides, clock: () => clock.now, logStream });
  checkAnswersAgainstDocument(app, options.alterDocument);
  // The catalogue the app loads from the same config, for tests that look plans up.
  const plans = loadPlanCatalogue(config.plansFile);
  const deps = { ...stores, keyPepper: config.keyPepper, clock: () => clock.now };
  return {
    app,
    stores,
    config,
    plans,
    logs,
    doubleReplies,
    assertNoDoubleReply,
    clock,
    async newCaller(plan: PlanId = 'free') {
      const account = await createLocalAccount(deps, `dev${++callerSeq}-${Date.now()}@example.com`, plan);
      const issued = await issueKey(deps, account.id, 'test');
      return { key: issued.secret, accountId: account.id, keyId: issued.key.id };
    },
    async close() {
      await app.close();
      await dns?.close();
      assertNoDoubleReply();
    },
  };
}

/** Fastify logs a second reply instead of throwing it: these are the lines that say so. */
export function isDoubleReply(line: string): boolean {
  return (
    line.includes('FST_ERR_REP_ALREADY_SENT') ||
    line.includes('ERR_HTTP_HEADERS_SENT') ||
    line.includes('Reply was already sent')
  );
}

/**
 * Every answer a test receives through `app.inject` is checked against the app's own OpenAPI document (status, media
 * type, JSON body, required headers): an answer the document does not describe fails the test that received it.
 */
function checkAnswersAgainstDocument(app: FastifyInstance, alterDocument: TestAppOptions['alterDocument']): void {
  const inject = app.inject.bind(app);
  let validator: ResponseValidator | undefined;
  const checked = async (options: InjectOptions | string) => {
    const response = await inject(options);
    // The document is the app's own, read once its routes are ready (the first inject made them so).
    if (!validator) {
      const document = structuredClone(await app.apiDocument()) as unknown as OpenApiDocument;
      alterDocument?.(document);
      validator = responseValidatorFor(document);
    }
    // The request as the server saw it: light-my-request resolves dot segments (`/r/..` is `/`).
    const request = response.raw.req as { method?: string; url?: string };
    const literal = (method: string, path: string) => {
      try {
        return app.hasRoute({ method: method as 'GET', url: path });
      } catch {
        return false; // a path the router would read as a pattern (`*`, `:`): not one of its literal routes
      }
    };
    const problems = validator.check(request.method ?? 'GET', request.url ?? '/', response, literal);
    if (problems.length > 0) throw new Error(`the answer departs from /openapi.json:\n- ${problems.join('\n- ')}`);
    return response;
  };
  app.inject = checked as typeof app.inject;
}

/**
 * The suite's app, built before its first test and closed after its last: call at the top of a test file.
 * The object is filled in by the beforeAll hook this registers (before the file's own hooks), so read it inside hooks
 * and tests.
 * `options` may be a function, for options known only once earlier hooks have run (a mock provider's address).
 */
export function useTestApp(options: TestAppOptions | (() => TestAppOptions) = {}): TestApp {
  const suite = {} as TestApp;
  beforeAll(async () => {
    Object.assign(suite, await createTestApp(typeof options === 'function' ? options() : options));
  });
  // A request answered twice fails the test that sent it, whatever that test asserted.
  afterEach(() => {
    suite.assertNoDoubleReply?.();
  });
  afterAll(async () => {
    await suite.close?.();
  });
  return suite;
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
