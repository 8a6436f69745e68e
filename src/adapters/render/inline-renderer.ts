// Renderer on the calling thread: for renders cheaper than a hop to a worker thread and back.
import type { Renderer } from '../../domain/ports/renderer.js';
import type { RenderSpec } from '../../domain/render-options.js';
import { DesignCaches } from '../../render/branded/design-caches.js';
import { renderTask } from '../../render/render-task.js';
import { bytesOrError } from './render-outcome.js';

export class InlineRenderer implements Renderer {
  /** Branded designs' tiles, logos and scan verdicts for renders on this thread. */
  readonly #caches = new DesignCaches();

  async render(spec: RenderSpec): Promise<Uint8Array> {
    const result = renderTask(spec, this.#caches);
    return bytesOrError(result instanceof Promise ? await result : result, spec);
  }

  async close(): Promise<void> {}
}
