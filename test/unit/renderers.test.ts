// The render pipeline: inline and pool renders are byte-identical, routing follows the policy, the cache stays bounded.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createRenderPipeline,
  type RenderPipeline,
  type RenderPipelineConfig,
} from '../../src/adapters/render/render-pipeline.js';
import { renderCost } from '../../src/domain/render-cost.js';
import type { RenderCaller } from '../../src/domain/ports/renderer.js';
import { decodeQr, readByAll } from '../helpers/decode.js';
import { plainSpec } from '../helpers/render-fixtures.js';
import { waitFor } from '../helpers/wait.js';
import { HOLD_PREFIX } from '../fixtures/holding-render-thread.js';

const HOLDING_THREAD = fileURLToPath(new URL('../fixtures/holding-render-thread.ts', import.meta.url));

const CONFIG: RenderPipelineConfig = {
  renderThreads: 1,
  renderMaxQueue: 64,
  renderInlineMaxPixels: 1024 * 1024,
  imageCacheBytes: 0,
  renderSmallOnPool: 'none',
};
const CALLER: RenderCaller = { accountId: 'a1', plan: 'business' };
const inline = createRenderPipeline(CONFIG);
const pooled = createRenderPipeline({ ...CONFIG, renderInlineMaxPixels: 0 });
const grouped = createRenderPipeline({ ...CONFIG, renderSmallOnPool: 'all' });
// The default with 2+ cores: only branded renders cross to a thread.
const brandedOnly = createRenderPipeline({ ...CONFIG, renderSmallOnPool: 'branded' });
afterAll(async () => Promise.all([inline.close(), pooled.close(), grouped.close(), brandedOnly.close()]));

const spec = plainSpec;

describe('inline and pool renders', () => {
  it('produce byte-identical images for every format', async () => {
    for (const format of ['png', 'webp', 'svg'] as const) {
      const s = spec('https://example.com/same-bytes', { format });
      const [a, b, c] = await Promise.all([
        inline.render(s, CALLER),
        pooled.render(s, CALLER),
        grouped.render(s, CALLER),
      ]);
      expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes)), format).toBe(true);
      expect(Buffer.from(a.bytes).equals(Buffer.from(c.bytes)), format).toBe(true);
      // The symbol named comes back across the thread boundary and out of a group alike.
      expect([a.symbol, b.symbol, c.symbol]).toEqual(Array(3).fill({ version: 3, errorCorrection: 'M' }));
    }
  });

  it('report content_too_long and a too-small size the same way', async () => {
    const tooLong = spec('x'.repeat(2400));
    for (const pipeline of [inline, pooled, grouped]) {
      await expect(pipeline.render(tooLong, CALLER)).rejects.toMatchObject({
        code: 'content_too_long',
        extensions: { limit: 2331, length: 2400 },
      });
      await expect(pipeline.render(spec('x'.repeat(500), { size: 64 }), CALLER)).rejects.toMatchObject({
        code: 'invalid_request',
        extensions: { minimumSize: expect.any(Number) },
      });
    }
  });
});

/** Pool tasks the renders took between them: none when drawn inline, one a large render or a turn's group. */
async function poolTasks(pipeline: RenderPipeline, renders: () => Array<Promise<unknown>>): Promise<number> {
  const before = pipeline.stats().pool.tasksCompleted;
  await Promise.all(renders());
  return pipeline.stats().pool.tasksCompleted - before;
}

describe('routing', () => {
  it(
    'keeps small images inline, and sends large images ' + 'and long payloads to the pool, whatever the format',
    async () => {
      for (const format of ['png', 'webp', 'svg'] as const) {
        expect(await poolTasks(inline, () => [inline.render(spec('x', { format }), CALLER)]), format).toBe(0);
        expect(await poolTasks(inline, () => [inline.render(spec('x', { format, size: 2048 }), CALLER)]), format).toBe(
          1,
        );
        expect(await poolTasks(inline, () => [inline.render(spec('x'.repeat(700), { format }), CALLER)]), format).toBe(
          1,
        );
      }
    },
  );

  it(
    'sends small renders, branded ones too, to a free ' + 'thread when asked to, and large ones to the pool ' + 'alone',
    async () => {
      const branded = spec('x', {
        branding: {
          moduleShape: 'rounded',
          finderShape: 'rounded',
          finderColor: '#000000ff',
          errorCorrectionFixed: false,
        },
      });
      expect(await poolTasks(grouped, () => [grouped.render(spec('x'), CALLER), grouped.render(branded, CALLER)])).toBe(
        1,
      );
      const large = (tag: string) => grouped.render(spec(`https://example.com/${tag}`, { size: 2048 }), CALLER);
      expect(await poolTasks(grouped, () => [large('a'), large('b')])).toBe(2);
    },
  );

  it('by default sends small branded renders to a free thread, drawing small plain ones inline', async () => {
    const branded = (payload: string) =>
      spec(payload, {
        branding: {
          moduleShape: 'rounded',
          finderShape: 'rounded',
          finderColor: '#000000ff',
          errorCorrectionFixed: false,
        },
      });
    const plain = [spec('https://example.com/plain/1'), spec('https://example.com/plain/2', { format: 'webp' })];
    expect(await poolTasks(brandedOnly, () => plain.map((s) => brandedOnly.render(s, CALLER)))).toBe(0);
    let images: Array<{ bytes: Uint8Array }> = [];
    const both = () => {
      const renders = ['https://example.com/b/1', 'https://example.com/b/2'].map((u) =>
        brandedOnly.render(branded(u), CALLER),
      );
      void Promise.all(renders).then((done) => (images = done));
      return renders;
    };
    expect(await poolTasks(brandedOnly, both)).toBe(1);
    expect(await decodeQr(images[0]!.bytes, 'png')).toEqual(readByAll('https://example.com/b/1'));
  });

  it('sends the small renders of one turn to the thread as one task, each answered with its own image', async () => {
    const before = grouped.stats().pool.tasksCompleted;
    const specs = Array.from({ length: 12 }, (_, i) =>
      spec(`https://example.com/turn/${i}`, { format: i % 2 ? 'webp' : 'png' }),
    );
    const images = await Promise.all(specs.map((s) => grouped.render(s, CALLER)));
    expect(grouped.stats().pool.tasksCompleted - before).toBe(1);
    for (const [i, s] of specs.entries())
      expect(Buffer.from(images[i]!.bytes).equals(Buffer.from((await inline.render(s, CALLER)).bytes)), s.payload).toBe(
        true,
      );
    expect(await decodeQr(images[0]!.bytes, 'png')).toEqual(readByAll(specs[0]!.payload));
  });

  it(
    'renders small images inline while every thread is ' + 'busy (a flood of large renders cannot hold them up)',
    async () => {
      // The large render takes the one thread as soon as render() is called (5 of the gate's 16 units, leaving room
      // for the small one), so the small render, asked for in the same turn, is drawn on the event loop.
      const large = () => grouped.render(spec('https://example.com/large', { size: 1100, format: 'webp' }), CALLER);
      expect(await poolTasks(grouped, () => [large(), grouped.render(spec('x'), CALLER)])).toBe(1);
      // With the thread free again, a small render goes to it.
      expect(await poolTasks(grouped, () => [grouped.render(spec('x'), CALLER)])).toBe(1);
    },
  );

  it('renders a large image on the pool, and it still scans', async () => {
    const before = inline.stats().pool.tasksCompleted;
    const big = await inline.render(spec('https://example.com/big', { size: 2048, format: 'webp' }), CALLER);
    expect(inline.stats().pool.tasksCompleted).toBe(before + 1); // a thread drew it, not the event loop
    expect(await decodeQr(big.bytes, 'webp')).toEqual(readByAll('https://example.com/big'));
  });

  it('weighs a render by its pixels', () => {
    expect([
      renderCost(spec('x', { size: 256 })),
      renderCost(spec('x')),
      renderCost(spec('x', { size: 2048 })),
      renderCost(spec('x', { size: 2048, format: 'svg' })),
    ]).toEqual([1, 1, 16, 1]);
  });
});

describe('admission', () => {
  it('refuses a render with 503 overloaded while the instance has no room, and draws it once it has', async () => {
    const small = createRenderPipeline({ ...CONFIG, renderMaxQueue: 0 });
    const other: RenderCaller = { accountId: 'other', plan: 'free' };
    try {
      // A 2048 px render is all the running work one thread admits (16 units), and nothing may wait.
      const held = small.render(spec('https://example.com/held', { size: 2048 }), CALLER);
      await expect(small.render(spec('late'), other)).rejects.toMatchObject({
        code: 'overloaded',
        retryAfterSeconds: 1,
      });
      await held;
      expect(await decodeQr((await small.render(spec('late'), other)).bytes, 'png')).toEqual(readByAll('late'));
    } finally {
      await small.close();
    }
  });
});

describe('render capacity shared between accounts', () => {
  it(
    "lets another account's small render start at once while a free account's big renders past its half of the " +
      'threads wait',
    async () => {
      const twoThreads = createRenderPipeline({ ...CONFIG, renderThreads: 2, renderMaxQueue: 1024 });
      const flooder: RenderCaller = { accountId: 'flooder', plan: 'free' };
      const bystander: RenderCaller = { accountId: 'bystander', plan: 'free' };
      try {
        // Admission is decided when render() is called: the stats right after say who runs and who waits.
        const flood = [1, 2, 3].map((i) =>
          twoThreads.render(spec(`https://example.com/flood/${i}`, { size: 2048, format: 'webp' }), flooder),
        );
        const small = twoThreads.render(spec('https://example.com/bystander'), bystander);
        // One 2048 px render of the flood runs (16 of the 32 units two threads admit); two wait; the bystander runs.
        expect(twoThreads.stats().admission).toEqual({ running: 17, queued: 32, accounts: 2 });
        expect(await decodeQr((await small).bytes, 'png')).toEqual(readByAll('https://example.com/bystander'));
        await Promise.all(flood);
        expect(twoThreads.stats().admission).toEqual({ running: 0, queued: 0, accounts: 0 });
      } finally {
        await twoThreads.close();
      }
    },
  );
});

describe('image cache', () => {
  it('renders a repeated spec once, and never holds more bytes than its bound', async () => {
    const cached = createRenderPipeline({ ...CONFIG, imageCacheBytes: 4_000 });
    const results: string[] = [];
    const renders: string[] = [];
    cached.listen({ cache: (r) => results.push(r), rendered: (format) => renders.push(format) });
    try {
      const first = await cached.render(spec('https://example.com/a'), CALLER);
      const again = await cached.render(spec('https://example.com/a'), CALLER);
      expect(again).toBe(first);
      expect(renders).toHaveLength(1);
      for (let i = 0; i < 20; i++) await cached.render(spec(`https://example.com/${i}`), CALLER);
      // ~1 KB images in a 4 KB cache: the oldest were evicted, so the first code renders again.
      await cached.render(spec('https://example.com/a'), CALLER);
      expect(renders).toHaveLength(22);
      expect(results.filter((r) => r === 'hit')).toHaveLength(1);
    } finally {
      await cached.close();
    }
  });
});

describe('what a batch yields to', () => {
  it(
    'counts queued renders other than batch groups, never ' + 'the batch’s own groups queued behind its running ones',
    async () => {
      // One thread, held by the first group until the test releases it, so what is queued behind it stays queued.
      const releaseFile = join(mkdtempSync(join(tmpdir(), 'qrm-hold-')), 'release');
      const held = createRenderPipeline(
        { ...CONFIG, renderInlineMaxPixels: 0 },
        { pool: { filename: HOLDING_THREAD } },
      );
      try {
        // Groups small enough that the gate lets all of them through to the pool's queue (4 units of its 16 each).
        const group = (payload: string) => [spec(payload, { size: 1024 })];
        const first = held.renderManyOnPool(group(`${HOLD_PREFIX}${releaseFile}`), CALLER);
        const rest = ['b', 'c'].map((tag) => held.renderManyOnPool(group(`https://example.com/yield/${tag}`), CALLER));
        await waitFor('two groups queued behind the held one', () => held.stats().pool.queueSize === 2);
        // Batch groups queued behind the batch's own running group: nothing to yield to.
        expect(held.othersQueued()).toBe(0);
        // Another account's request render (this pipeline draws nothing inline), queued behind the groups: the batch's
        // account already runs its share of the running work, so its own requests would wait at admission instead.
        const single = held.render(spec('https://example.com/yield/single', { size: 1024 }), {
          ...CALLER,
          accountId: 'a2',
        });
        await waitFor('the single render queued', () => held.stats().pool.queueSize === 3);
        // Until it starts, whichever group is running, the single render is what a batch waits for.
        expect(held.othersQueued()).toBe(1);
        writeFileSync(releaseFile, '');
        const [firstImages, ...restImages] = await Promise.all([first, ...rest]);
        expect([firstImages, ...restImages].every((images) => images[0] instanceof Uint8Array)).toBe(true);
        await single;
        expect(held.othersQueued()).toBe(0);
      } finally {
        writeFileSync(releaseFile, '');
        await held.close();
      }
    },
  );
});
