// Quota exactness in the embedded default: two API processes on one SQLite file, far more concurrent requests than quota left.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStores, type StoreAdapters } from '../../src/adapters/embedded.js';
import { periodOf } from '../../src/domain/period.js';
import { planById } from '../../src/domain/plan-catalogue.js';
import { createLocalAccount } from '../../src/services/accounts.js';
import { issueKey } from '../../src/services/api-keys.js';
import { qrFingerprint } from '../../src/services/generate-qr.js';
import { startServer, type RunningServer } from '../helpers/processes.js';

let dataDir: string;
let servers: RunningServer[] = [];
let stores: StoreAdapters;

// Metering is under test here, not load shedding: neither server may shed a request for event-loop delay.
const SERVER_ENV = { RENDER_THREADS: '1', RENDER_MAX_QUEUE: '1000', MAX_EVENT_LOOP_DELAY_MS: '0', LOG_LEVEL: 'warn' };

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'qrm-exact-'));
  // The test's own connection to the same file: accounts and keys in, stored counts out.
  stores = createSqliteStores(dataDir);
  servers = await Promise.all([startServer({ ...SERVER_ENV, QR_DATA_DIR: dataDir }), startServer({ ...SERVER_ENV, QR_DATA_DIR: dataDir })]);
}, 60_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await stores?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const deps = () => ({ ...stores, keyPepper: undefined, clock: () => new Date() });

async function newCaller(): Promise<{ accountId: string; key: string }> {
  const account = await createLocalAccount(deps(), `exact-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`, 'free');
  return { accountId: account.id, key: (await issueKey(deps(), account.id)).secret };
}

/** N requests at once, alternating between the two processes; resolves with each status and problem code. */
async function burst(key: string, bodies: object[]): Promise<Array<{ status: number; code?: string; content: string }>> {
  return Promise.all(
    bodies.map(async (body, i) => {
      const res = await fetch(`${servers[i % 2]!.baseUrl}/api/v1/QRManager/generate`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(20_000),
      });
      const content = (body as { content: string }).content;
      if (res.status === 200) {
        await res.arrayBuffer();
        return { status: 200, content };
      }
      return { status: res.status, code: ((await res.json()) as { code: string }).code, content };
    }),
  );
}

const png = (content: string) => ({ content, type: 'text', outputFormat: 'png', size: 64 });

describe('two embedded API processes on one SQLite file', () => {
  it('let exactly the remaining M of N ≫ M concurrent requests through; the rest get 429 and the stored count is the limit', async () => {
    const caller = await newCaller();
    const limit = planById('free').requestsPerMonth;
    const remaining = 6;
    // Spend all but `remaining` of the month beforehand, through the same meter the servers use.
    const period = periodOf(new Date());
    const qr = { fingerprint: qrFingerprint('text', 'spent'), type: 'text' as const, payload: 'spent' };
    for (let i = 0; i < limit - remaining; i++) {
      const outcome = await stores.meter.reserve({ accountId: caller.accountId, period, qr, limits: { requests: limit, qrs: 5 }, at: new Date() });
      expect(outcome.ok).toBe(true);
    }

    const answers = await burst(caller.key, Array.from({ length: 120 }, () => png('spent')));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(remaining);
    expect(answers.filter((a) => a.status === 429 && a.code === 'quota_exceeded')).toHaveLength(120 - remaining);
    expect(await stores.meter.usage(caller.accountId, period)).toEqual({ requests: limit, qrs: 1 });
  }, 40_000);

  it('let exactly the plan’s distinct QR codes through when many new codes arrive at once, and store exactly those', async () => {
    const caller = await newCaller();
    const qrLimit = planById('free').qrsPerMonth;
    const answers = await burst(caller.key, Array.from({ length: 60 }, (_, i) => png(`distinct ${i}`)));
    const accepted = answers.filter((a) => a.status === 200).map((a) => a.content);
    expect(accepted).toHaveLength(qrLimit);
    expect(answers.filter((a) => a.status === 429 && a.code === 'qr_quota_exceeded')).toHaveLength(60 - qrLimit);
    const period = periodOf(new Date());
    expect(await stores.meter.usage(caller.accountId, period)).toEqual({ requests: qrLimit, qrs: qrLimit });
    expect((await stores.meter.qrs(caller.accountId, period, 100)).map((r) => r.payload).sort()).toEqual(accepted.sort());
  }, 40_000);
});
