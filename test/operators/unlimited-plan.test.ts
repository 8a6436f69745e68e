// An operator's plans file over real HTTP: an unlimited plan serves 2,000 requests in one second on one key with no
// RateLimit entry, on SQLite and on Redis.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodOf } from '../../src/domain/period.js';
import { createTestApp, GENERATE_URL, generate, type TestApp } from '../helpers/app.js';
import { postBatch, urlItems } from '../helpers/batches.js';
import { PortalClient } from '../helpers/portal-client.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';

const PLANS = {
  plans: [
    {
      id: 'team',
      name: 'Internal team',
      monthlyPriceUsd: 0,
      requestsPerMonth: null,
      qrsPerMonth: null,
      burstPerSecond: null,
      formats: ['png', 'webp'],
    },
    {
      id: 'metered',
      name: 'Metered',
      monthlyPriceUsd: 0,
      requestsPerMonth: 100_000,
      qrsPerMonth: null,
      burstPerSecond: null,
      formats: ['png'],
    },
    {
      id: 'small',
      name: 'Small',
      monthlyPriceUsd: 0,
      requestsPerMonth: 100,
      qrsPerMonth: 10,
      burstPerSecond: 5,
      formats: ['png'],
      maxBatchItems: 3,
      batchesInFlight: 1,
      activeDynamicCodes: 1,
    },
    {
      id: 'vector',
      name: 'Vector',
      monthlyPriceUsd: 12,
      requestsPerMonth: 1000,
      qrsPerMonth: 100,
      burstPerSecond: 50,
      formats: ['png', 'webp', 'svg'],
    },
  ],
  default: 'team',
};

const REQUESTS = 2_000;
const IN_FLIGHT = 50;
const body = JSON.stringify({ content: 'https://example.com/unlimited', type: 'url', outputFormat: 'png', size: 128 });

interface Answer {
  status: number;
  headers: Headers;
}

/**
 * `count` POSTs over real HTTP, at most IN_FLIGHT at once (a bounded loop: each worker takes the next index until none
 * is left).
 */
async function hammer(baseUrl: string, key: string, count: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const response = await fetch(`${baseUrl}${GENERATE_URL}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body,
      });
      await response.arrayBuffer();
      answers.push({ status: response.status, headers: response.headers });
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return answers;
}

const backends: Array<{ name: string; redis: boolean }> = [
  { name: 'embedded SQLite', redis: false },
  { name: 'Redis metering', redis: true },
];

describe.each(backends)('a plans file with unlimited plans ($name)', ({ redis: useRedis }) => {
  let dir: string;
  let redis: RedisServer | undefined;
  let t: TestApp;
  let baseUrl: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'qrm-unlimited-'));
    const plansFile = join(dir, 'plans.json');
    await writeFile(plansFile, JSON.stringify(PLANS));
    if (useRedis) redis = await startRedisServer();
    // The clock stands still: every request falls in the same second, whatever the machine's speed.
    t = await createTestApp({
      env: { QR_PLANS_FILE: plansFile },
      now: new Date(),
      ...(redis ? { redis: { url: redis.url, keyPrefix: `qrm-${randomUUID()}:` } } : {}),
    });
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  }, 30_000);

  afterAll(async () => {
    await t?.close();
    await redis?.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  it(
    'serves 2,000 requests in one second on one key of the unlimited plan, every one without a RateLimit or ' +
      'X-RateLimit header',
    async () => {
      const caller = await t.newCaller('team');
      const answers = await hammer(baseUrl, caller.key, REQUESTS);
      expect(answers).toHaveLength(REQUESTS);
      expect(answers.filter((a) => a.status !== 200)).toEqual([]);
      for (const name of [
        'ratelimit',
        'ratelimit-policy',
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
      ]) {
        expect(answers.filter((a) => a.headers.has(name))).toHaveLength(0);
      }
      // Still counted: the dashboard and `qrm usage` show what an unlimited plan used.
      expect(await t.stores.meter.usage(caller.accountId, periodOf(t.clock.now))).toEqual({
        requests: REQUESTS,
        qrs: 1,
      });
    },
    120_000,
  );

  it('lists only the limited dimensions in RateLimit and RateLimit-Policy', async () => {
    const metered = await t.newCaller('metered');
    const response = await generate(t.app, metered.key, JSON.parse(body));
    expect(response.statusCode).toBe(200);
    expect(response.headers['ratelimit-policy']).toMatch(/^"monthly";q=100000;w=\d+$/);
    expect(response.headers['ratelimit']).toMatch(/^"monthly";r=99999;t=\d+$/);
    expect(response.headers['x-ratelimit-limit']).toBe('100000');
  });

  it('holds a limited plan of the same file to its burst, so the unlimited run above could have failed', async () => {
    const small = await t.newCaller('small');
    const answers = await hammer(baseUrl, small.key, 40);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(35);
    expect(answers.find((a) => a.status === 200)?.headers.get('ratelimit-policy')).toContain('"burst";q=5;w=1');
  });

  it(
    "holds batches and dynamic codes to the file's figures, and a plan that leaves them out to the documented " +
      'defaults',
    async () => {
      const small = await t.newCaller('small');
      const tooLarge = await postBatch(t.app, small.key, { items: urlItems(4, 'small-batch') });
      expect(tooLarge.statusCode).toBe(413);
      expect(tooLarge.json()).toMatchObject({ code: 'batch_too_large', limit: 3 });
      const codes = '/api/v1/QRManager/codes';
      const create = (key: string) =>
        t.app.inject({
          method: 'POST',
          url: codes,
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          payload: { target: 'https://example.com/dyn' },
        });
      expect((await create(small.key)).statusCode).toBe(201);
      const second = await create(small.key);
      expect(second.statusCode).toBe(409);
      expect(second.json()).toMatchObject({ code: 'code_limit_reached', limit: 1 });
      // "team" names no batch figure: a free plan of the file takes the free column (100 items).
      const team = await t.newCaller('team');
      const defaulted = await postBatch(t.app, team.key, { items: urlItems(101, 'team-batch') });
      expect(defaulted.statusCode).toBe(413);
      expect(defaulted.json()).toMatchObject({ code: 'batch_too_large', limit: 100 });
      // Unlimited monthly requests and QRs: the whole-batch reservation skips both checks and still counts.
      const before = await t.stores.meter.usage(team.accountId, periodOf(t.clock.now));
      const accepted = await postBatch(t.app, team.key, { items: urlItems(2, 'team-ok') });
      expect(accepted.statusCode).toBe(202);
      expect((await t.stores.meter.usage(team.accountId, periodOf(t.clock.now))).requests).toBe(before.requests + 2);
    },
  );

  it("names the file's own cheapest plan with the format in the 403 upgrade hint", async () => {
    const caller = await t.newCaller('team');
    const response = await generate(t.app, caller.key, { ...JSON.parse(body), outputFormat: 'svg' });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ code: 'plan_upgrade_required', plan: 'team', requiredPlan: 'vector' });
    expect(response.json().detail).toContain('the Vector plan');
  });

  it('describes the file’s plans in the OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const description: string = doc.paths['/api/v1/QRManager/generate'].post.description;
    expect(description).toContain(
      '**Internal team** (`team`): unlimited requests and unlimited distinct QRs a month, no burst limit',
    );
    expect(description).toContain('**Small** (`small`): 100 requests and 10 distinct QRs a month, burst 5/s per key');
  });

  it('starts a new portal account on the default plan and shows the file’s plans and unlimited usage', async () => {
    const client = new PortalClient(t.app);
    await client.signInLocally(`unlimited-${randomUUID()}@example.com`);
    const dashboard = (await client.get('/portal/')).body;
    expect(dashboard).toContain('Internal team');
    expect(dashboard).toContain('(unlimited)');
    const plans = (await client.get('/portal/plans')).body;
    for (const plan of PLANS.plans) expect(plans).toContain(`id="plan-${plan.id}"`);
    expect(plans).toContain('<strong>unlimited</strong> requests a month');
    expect(plans).toContain('<strong>no limit</strong> on requests a second per API key');
    expect(plans).toContain('--plan vector');
  });
});
