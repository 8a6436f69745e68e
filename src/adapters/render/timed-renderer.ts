// Renderer decorator that reports each render's duration and outcome, for metrics, without the core knowing.
import { ApiError } from '../../domain/errors.js';
import type { Renderer, RendererStats } from '../../domain/ports/renderer.js';
import type { RenderSpec } from '../../domain/render-options.js';

export type RenderObserver = (format: RenderSpec['format'], seconds: number, outcome: 'ok' | 'rejected' | 'failed') => void;

export class TimedRenderer implements Renderer {
  readonly #inner: Renderer;
  readonly #observe: RenderObserver;

  constructor(inner: Renderer, observe: RenderObserver) {
    this.#inner = inner;
    this.#observe = observe;
  }

  async render(spec: RenderSpec): Promise<Uint8Array> {
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const bytes = await this.#inner.render(spec);
      this.#observe(spec.format, seconds(), 'ok');
      return bytes;
    } catch (error) {
      // ApiErrors are refusals (too long, overloaded); anything else is a render that broke.
      this.#observe(spec.format, seconds(), error instanceof ApiError ? 'rejected' : 'failed');
      throw error;
    }
  }

  stats(): RendererStats | undefined {
    return this.#inner.stats?.();
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}
