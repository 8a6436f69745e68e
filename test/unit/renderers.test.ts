// Renderer decorators: inline and pool renders are byte-identical, routing follows the policy, the cache stays bounded.
import { afterAll, describe, expect, it } from 'vitest';
import { CachingRenderer } from '../../src/adapters/render/caching-renderer.js';
import { InlineRenderer } from '../../src/adapters/render/inline-renderer.js';
import { RenderPool } from '../../src/adapters/render/render-pool.piscina.js';
import { rendersInline, RoutingRenderer } from '../../src/adapters/render/routing-renderer.js';
import type { Renderer } from '../../src/domain/ports/renderer.js';
import type { RenderSpec } from '../../src/domain/render-options.js';
import { decodeQr } from '../helpers/decode.js';

const pool = new RenderPool({ threads: 1 });
afterAll(async () => pool.close());

const spec = (payload: string, overrides: Partial<RenderSpec> = {}): RenderSpec => ({
  payload,
  format: 'png',
  size: 512,
  margin: 4,
  errorCorrection: 'M',
  darkColor: '#000000ff',
  lightColor: '#ffffffff',
  ...overrides,
});

/** Counts the renders that reach it, to see what a decorator let through. */
class CountingRenderer implements Renderer {
  calls = 0;
  constructor(private readonly inner: Renderer) {}
  render(s: RenderSpec) {
    this.calls++;
    return this.inner.render(s);
  }
  async close() {}
}

describe('InlineRenderer and RenderPool', () => {
  it('produce byte-identical images for every format', async () => {
    const inline = new InlineRenderer();
    for (const format of ['png', 'webp', 'svg'] as const) {
      const s = spec('https://example.com/same-bytes', { format });
      const [a, b] = await Promise.all([inline.render(s), pool.render(s)]);
      expect(Buffer.from(a).equals(Buffer.from(b)), format).toBe(true);
    }
  });

  it('report content_too_long the same way', async () => {
    const inline = new InlineRenderer();
    const tooLong = spec('x'.repeat(2400));
    await expect(inline.render(tooLong)).rejects.toMatchObject({ code: 'content_too_long', extensions: { limit: 2331, length: 2400 } });
    await expect(pool.render(tooLong)).rejects.toMatchObject({ code: 'content_too_long', extensions: { limit: 2331, length: 2400 } });
  });
});

describe('RoutingRenderer', () => {
  const policy = { inlineMaxPixels: 1024 * 1024, inlineMaxPayloadBytes: 600 };

  it('keeps small images inline, and sends large images and long payloads to the pool, whatever the format', () => {
    for (const format of ['png', 'webp', 'svg'] as const) {
      expect(rendersInline(spec('x', { format }), policy)).toBe(true);
      expect(rendersInline(spec('x', { format, size: 2048 }), policy)).toBe(false);
      expect(rendersInline(spec('x'.repeat(700), { format }), policy)).toBe(false);
    }
  });

  it('routes accordingly, and the pool-rendered image still scans', async () => {
    const inline = new CountingRenderer(new InlineRenderer());
    const pooled = new CountingRenderer(pool);
    const router = new RoutingRenderer(inline, pooled, policy);
    await router.render(spec('https://example.com/small'));
    const big = await router.render(spec('https://example.com/big', { size: 2048 }));
    expect([inline.calls, pooled.calls]).toEqual([1, 1]);
    expect(await decodeQr(big, 'png')).toEqual({ zbar: 'https://example.com/big', zxing: 'https://example.com/big' });
  });
});

describe('CachingRenderer', () => {
  it('renders a repeated spec once, and never holds more bytes than its bound', async () => {
    const counting = new CountingRenderer(new InlineRenderer());
    const results: string[] = [];
    const cache = new CachingRenderer(counting, 4_000, (r) => results.push(r));
    const first = await cache.render(spec('https://example.com/a'));
    const again = await cache.render(spec('https://example.com/a'));
    expect(again).toBe(first);
    expect(counting.calls).toBe(1);
    for (let i = 0; i < 20; i++) await cache.render(spec(`https://example.com/${i}`));
    // ~1 KB images in a 4 KB cache: the oldest were evicted, so the first code renders again.
    await cache.render(spec('https://example.com/a'));
    expect(counting.calls).toBe(22);
    expect(results.filter((r) => r === 'hit')).toHaveLength(1);
  });
});
