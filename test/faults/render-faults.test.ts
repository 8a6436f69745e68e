// A render thread that exits or runs out of heap mid-render: that request alone fails (503, refunded) and the pool
// replaces the thread.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodOf } from '../../src/domain/period.js';
import { EXIT_PAYLOAD, HEAP_PAYLOAD } from '../fixtures/faulty-render-thread.js';
import { createTestApp, generate, type TestApp } from '../helpers/app.js';
import { runClockFast } from '../helpers/fast-clock.js';
import { waitFor } from '../helpers/wait.js';

const FAULTY_THREAD = fileURLToPath(new URL('../fixtures/faulty-render-thread.ts', import.meta.url));

let t: TestApp;

beforeAll(async () => {
  // One real Piscina thread with a small heap ceiling, and every render sent to it (no inline routing); the rest is the
  // production pipeline.
  t = await createTestApp({
    env: { RENDER_INLINE_MAX_PIXELS: '0', RENDER_MAX_QUEUE: '100' },
    renderPool: { maxOldGenerationSizeMb: 64, filename: FAULTY_THREAD },
  });
  runClockFast(t.clock);
}, 30_000);

afterAll(async () => {
  await t?.close();
});

const png = (content: string) => ({ content, type: 'text', outputFormat: 'png', size: 128 });

describe.each([
  ['exits mid-render', EXIT_PAYLOAD],
  ['exceeds its heap limit', HEAP_PAYLOAD],
])('a render thread that %s', (_what, marker) => {
  it(
    'fails only that request with 503 unavailable and Retry-After, refunds it, and the next renders run on a ' +
      'replacement thread',
    async () => {
      const caller = await t.newCaller('business');
      const acknowledged: string[] = [];
      const send = async (content: string) => {
        const res = await generate(t.app, caller.key, png(content));
        if (res.statusCode === 200) acknowledged.push(content);
        return res;
      };

      expect((await send(`${marker} before`)).statusCode).toBe(200);
      // The fatal render is dispatched first; four more wait behind it for the pool's only thread.
      const [fatal, ...queued] = await Promise.all([
        send(marker),
        ...Array.from({ length: 4 }, (_, i) => send(`${marker} queued ${i}`)),
      ]);

      expect(fatal.statusCode).toBe(503);
      expect(fatal.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(fatal.json()).toMatchObject({ code: 'unavailable', status: 503 });
      expect(fatal.headers['retry-after']).toBe('1');
      expect(fatal.body).not.toMatch(/\bat .+:\d+:\d+/);
      expect(queued.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);

      // Ready again means the render probe was answered by a thread: the replacement is up.
      await waitFor(
        'a replacement render thread',
        async () => (await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode === 200,
        { timeoutMs: 10_000 },
      );
      for (let i = 0; i < 3; i++) expect((await send(`${marker} after ${i}`)).statusCode).toBe(200);

      // Nothing billed for the failed render, nothing lost of the others.
      const period = periodOf(t.clock.now);
      expect(await t.stores.meter.usage(caller.accountId, period)).toEqual({
        requests: acknowledged.length,
        qrs: acknowledged.length,
      });
      const records = await t.stores.meter.qrs(caller.accountId, period, 100);
      expect(records.map((r) => r.payload).sort()).toEqual([...acknowledged].sort());
      expect(records.every((r) => r.generations === 1)).toBe(true);
    },
    30_000,
  );
});
