// Quota exactness across instances: far more concurrent requests than quota left, spread over two API instances, in
// both deployments.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreAdapters } from '../../src/adapters/contract.js';
import { createSqliteStores } from '../../src/adapters/sqlite/sqlite-stores.js';
import { periodOf } from '../../src/domain/period.js';
import { PlanCatalogue } from '../../src/domain/plan-catalogue.js';
import { createLocalAccount } from '../../src/services/accounts.js';
import { issueKey } from '../../src/services/api-keys.js';
import { qrFingerprint } from '../../src/services/render-spec.js';
import { generate } from '../helpers/app.js';
import { startServer } from '../helpers/processes.js';
import { startTwoInstancesOnRedis } from '../helpers/two-instances.js';

interface Answer {
  status: number;
  code?: string;
  content: string;
}

/** Two instances of the API on shared state, and the stores a test reads the stored counts from. */
interface Cluster {
  stores: StoreAdapters;
  /** Sends one generation to the instance `i % 2`. */
  send(i: number, key: string, body: { content: string }): Promise<Answer>;
  close(): Promise<void>;
}

// Metering is under test here, not load shedding: no request may be shed for event-loop delay or a full render queue.
const NO_SHEDDING = { RENDER_THREADS: '1', RENDER_MAX_QUEUE: '1000', MAX_EVENT_LOOP_DELAY_MS: '0' };

/** The embedded default: two API processes on one SQLite file; the test opens its own connection to the same file. */
async function twoProcessesOnOneSqliteFile(): Promise<Cluster> {
  const dataDir = await mkdtemp(join(tmpdir(), 'qrm-exact-'));
  const stores = createSqliteStores(dataDir);
  const env = { ...NO_SHEDDING, LOG_LEVEL: 'warn', QR_DATA_DIR: dataDir };
  const servers = await Promise.all([startServer(env), startServer(env)]);
  return {
    stores,
    async send(i, key, body) {
      const res = await fetch(`${servers[i % 2]!.baseUrl}/api/v1/QRManager/generate`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(20_000),
      });
      if (res.status === 200) {
        await res.arrayBuffer();
        return { status: 200, content: body.content };
      }
      return { status: res.status, code: ((await res.json()) as { code: string }).code, content: body.content };
    },
    async close() {
      await Promise.all(servers.map((s) => s.stop()));
      await stores.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Production mode: two API instances metering on one Redis over one store. */
async function twoInstancesOnOneRedis(): Promise<Cluster> {
  const instances = await startTwoInstancesOnRedis('quota', { env: NO_SHEDDING });
  const { a, b } = instances;
  return {
    stores: a.stores,
    async send(i, key, body) {
      const res = await generate(i % 2 === 0 ? a.app : b.app, key, body);
      return res.statusCode === 200
        ? { status: 200, content: body.content }
        : { status: res.statusCode, code: res.json().code, content: body.content };
    },
    close: () => instances.close(),
  };
}

const png = (content: string) => ({ content, type: 'text', outputFormat: 'png', size: 64 });

describe.each([
  ['two embedded API processes on one SQLite file', twoProcessesOnOneSqliteFile],
  ['two API instances sharing one Redis', twoInstancesOnOneRedis],
])('%s', (_name, start) => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await start();
  }, 60_000);
  afterAll(async () => cluster?.close());

  const deps = () => ({ ...cluster.stores, keyPepper: undefined, clock: () => new Date() });

  async function newCaller(): Promise<{ accountId: string; key: string }> {
    const account = await createLocalAccount(
      deps(),
      `exact-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`,
      'free',
    );
    return { accountId: account.id, key: (await issueKey(deps(), account.id)).secret };
  }

  it(
    'let exactly the remaining M of N ≫ M concurrent requests through; the rest get 429 and the stored count is ' +
      'the limit',
    async () => {
      const caller = await newCaller();
      const limit = PlanCatalogue.builtIn().get('free').requestsPerMonth!;
      // Fewer left than the free burst (10 a second), so every refusal below can only come from the monthly limit.
      const remaining = 6;
      // Spend all but `remaining` of the month beforehand, through the same meter the instances use.
      const period = periodOf(new Date());
      const qr = { fingerprint: qrFingerprint('text', 'spent'), type: 'text' as const, payload: 'spent' };
      for (let i = 0; i < limit - remaining; i++) {
        const outcome = await cluster.stores.meter.reserve({
          accountId: caller.accountId,
          period,
          qr,
          limits: { requests: limit, qrs: 5 },
          at: new Date(),
        });
        expect(outcome.ok).toBe(true);
      }

      const answers = await Promise.all(
        Array.from({ length: 120 }, (_, i) => cluster.send(i, caller.key, png('spent'))),
      );
      expect(answers.filter((a) => a.status === 200)).toHaveLength(remaining);
      expect(answers.filter((a) => a.status === 429 && a.code === 'quota_exceeded')).toHaveLength(120 - remaining);
      expect(await cluster.stores.meter.usage(caller.accountId, period)).toEqual({ requests: limit, qrs: 1 });
    },
    40_000,
  );

  it(
    'let exactly the plan’s distinct QR codes through when ' + 'many new codes arrive at once, and store exactly those',
    async () => {
      const caller = await newCaller();
      const qrLimit = PlanCatalogue.builtIn().get('free').qrsPerMonth!;
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, i) => cluster.send(i, caller.key, png(`distinct ${i}`))),
      );
      const accepted = answers.filter((a) => a.status === 200).map((a) => a.content);
      expect(accepted).toHaveLength(qrLimit);
      expect(answers.filter((a) => a.status === 429 && a.code === 'qr_quota_exceeded')).toHaveLength(60 - qrLimit);
      const period = periodOf(new Date());
      expect(await cluster.stores.meter.usage(caller.accountId, period)).toEqual({ requests: qrLimit, qrs: qrLimit });
      expect((await cluster.stores.meter.qrs(caller.accountId, period, 100)).map((r) => r.payload).sort()).toEqual(
        accepted.sort(),
      );
    },
    40_000,
  );
});
