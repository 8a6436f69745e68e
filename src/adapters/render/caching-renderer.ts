// Renderer decorator: a byte-bounded LRU of rendered images, so repeated codes skip the render pool entirely.
import { LRUCache } from 'lru-cache';
import type { Renderer, RendererStats } from '../../domain/ports/renderer.js';
import { renderKey } from '../../domain/render-key.js';
import type { RenderSpec } from '../../domain/render-options.js';

export type CacheObserver = (result: 'hit' | 'miss') => void;

export class CachingRenderer implements Renderer {
  readonly #inner: Renderer;
  readonly #cache: LRUCache<string, Uint8Array>;
  readonly #observe: CacheObserver;

  constructor(inner: Renderer, maxBytes: number, observe: CacheObserver = () => {}) {
    this.#inner = inner;
    this.#observe = observe;
    this.#cache = new LRUCache({ maxSize: maxBytes, sizeCalculation: (bytes) => Math.max(1, bytes.byteLength) });
  }

  async render(spec: RenderSpec, knownKey?: string): Promise<Uint8Array> {
    const key = knownKey ?? renderKey(spec);
    const cached = this.#cache.get(key);
    if (cached) {
      this.#observe('hit');
      return cached;
    }
    this.#observe('miss');
    const bytes = await this.#inner.render(spec);
    this.#cache.set(key, bytes);
    return bytes;
  }

  stats(): RendererStats | undefined {
    return this.#inner.stats?.();
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}
