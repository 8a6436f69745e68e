// redis-server stopped (SIGTERM) or killed (SIGKILL) under load on two API instances, then restarted: 503s with
// Retry-After, no hang, recovery, nothing lost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodOf } from '../../src/domain/period.js';
import { listKeys } from '../../src/services/api-keys.js';
import { rollupUsage } from '../../src/services/rollup-usage.js';
import { generate, type TestApp } from '../helpers/app.js';
import { runClockFast } from '../helpers/fast-clock.js';
import type { RedisServer } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';
import { startTwoInstancesOnRedis, untilBothReachRedis, type TwoInstances } from '../helpers/two-instances.js';

let redis: RedisServer;
let a: TestApp;
let b: TestApp;

let instances: TwoInstances;

beforeAll(async () => {
  instances = await startTwoInstancesOnRedis('redis-outage', {
    env: { RENDER_MAX_QUEUE: '1000', IMAGE_CACHE_MB: '0' },
  });
  ({ redis, a, b } = instances);
  runClockFast(a.clock, 1_000);
  runClockFast(b.clock, 1_000);
}, 60_000);

afterAll(async () => instances?.close());

interface Answer {
  loop: number;
  status: number;
  /** Which part of the test the request was sent in, and whether Redis was still down when its answer came. */
  sentWhile: Phase;
  answeredWhileDown: boolean;
  content: string;
  contentType: unknown;
  retryAfter: unknown;
  code: unknown;
}

type Phase = 'up' | 'down' | 'recovered';

const CLIENTS = 6;
// Spaces one client's requests a little, so six clients are a steady load rather than a flood.
const pace = () => new Promise((resolve) => setTimeout(resolve, 5));
const png = (content: string) => ({ content, type: 'text', outputFormat: 'png', size: 64 });

// A graceful stop closes the connections cleanly; a kill leaves them dangling mid-command. Both must look the same to
// callers.
describe.each([
  ['stopped', 'SIGTERM'],
  ['killed', 'SIGKILL'],
] as const)('redis-server %s under load', (_how, signal) => {
  it(
    'answers 503 unavailable with Retry-After (never a 500, never a hang), recovers by itself, and stores ' +
      'exactly what was acknowledged',
    async () => {
      const caller = await a.newCaller('business');
      const answers: Answer[] = [];
      let phase: Phase = 'up';
      let running = true;
      // Six clients, each sending one request after another to alternating instances, until told to stop (bounded in
      // count and time).
      const client = async (loop: number) => {
        const deadline = Date.now() + 40_000;
        for (let i = 0; i < 5_000 && running && Date.now() < deadline; i++) {
          const content = `redis-${signal} ${(loop + i) % 4}`;
          const sentWhile = phase;
          const res = await generate((loop + i) % 2 === 0 ? a.app : b.app, caller.key, png(content));
          const code = res.statusCode === 200 ? undefined : (res.json() as { code?: unknown }).code;
          answers.push({
            loop,
            status: res.statusCode,
            sentWhile,
            answeredWhileDown: phase === 'down',
            content,
            contentType: res.headers['content-type'],
            retryAfter: res.headers['retry-after'],
            code,
          });
          await pace();
        }
      };
      const everyClient = (wanted: (x: Answer) => boolean, count: number) => () =>
        Array.from(
          { length: CLIENTS },
          (_, loop) => answers.filter((x) => x.loop === loop && wanted(x)).length >= count,
        ).every(Boolean);
      const clients = Array.from({ length: CLIENTS }, (_, loop) => client(loop));

      try {
        await waitFor(
          'every client to be served before the outage',
          everyClient((x) => x.status === 200, 1),
          { timeoutMs: 15_000, intervalMs: 20 },
        );
        phase = 'down';
        await redis.stop(signal);
        const readyWhileDown = await a.app.inject({ method: 'GET', url: '/readyz' });
        expect(readyWhileDown.statusCode).toBe(503);
        expect(readyWhileDown.headers['content-type']).toMatch(/^application\/problem\+json/);
        // Never a hang: every client has a request sent after Redis went down answered while it is still down.
        await waitFor(
          'every client to be answered 503 while Redis is down',
          everyClient((x) => x.sentWhile === 'down' && x.answeredWhileDown && x.status === 503, 1),
          {
            timeoutMs: 15_000,
            intervalMs: 20,
          },
        );
        await redis.start();
        await untilBothReachRedis(a, b);
        phase = 'recovered';
        // Recovery without a restart of either instance: every client is served again.
        await waitFor(
          'every client to be served after the outage',
          everyClient((x) => x.sentWhile === 'recovered' && x.status === 200, 2),
          {
            timeoutMs: 15_000,
            intervalMs: 20,
          },
        );
      } finally {
        running = false;
        await Promise.all(clients);
      }

      // Only successes and clean 503s.
      expect(answers.filter((x) => x.status !== 200 && x.status !== 503)).toEqual([]);
      const refused = answers.filter((x) => x.status === 503);
      for (const x of refused) {
        expect(x.contentType).toMatch(/^application\/problem\+json/);
        expect(x.code).toBe('unavailable');
        expect(x.retryAfter).toBe('1');
      }
      for (let loop = 0; loop < CLIENTS; loop++)
        expect(answers.filter((x) => x.loop === loop).at(-1)?.status).toBe(200);

      // Nothing lost, nothing doubled: usage, QR records and the key match the 200s (refunds of lost answers settle
      // first).
      const ok = answers.filter((x) => x.status === 200);
      const period = periodOf(a.clock.now);
      await waitFor(
        'deferred refunds to settle',
        async () => (await a.stores.meter.usage(caller.accountId, period)).requests === ok.length,
        {
          timeoutMs: 10_000,
          intervalMs: 100,
        },
      );
      const distinct = new Set(ok.map((x) => x.content));
      expect(await a.stores.meter.usage(caller.accountId, period)).toEqual({ requests: ok.length, qrs: distinct.size });
      const perContent = Object.fromEntries([...distinct].map((c) => [c, ok.filter((x) => x.content === c).length]));
      const records = await b.stores.meter.qrs(caller.accountId, period, 100);
      expect(Object.fromEntries(records.map((r) => [r.payload, r.generations]))).toEqual(perContent);
      expect((await listKeys(a.stores, caller.accountId)).map((k) => k.revokedAt)).toEqual([undefined]);
      expect((await generate(b.app, caller.key, png(`redis-${signal} 0`))).statusCode).toBe(200);

      // And the system of record, once the rollup has run, holds the same figures.
      await rollupUsage(a.stores);
      expect(await a.stores.usageLedger!.usage(caller.accountId, period)).toEqual({
        requests: ok.length + 1,
        qrs: distinct.size,
      });
    },
    60_000,
  );
});
