// Renderer on the calling thread: for renders cheaper than a hop to a worker thread and back.
import type { Renderer } from '../../domain/ports/renderer.js';
import type { RenderSpec } from '../../domain/render-options.js';
import { renderTask } from '../../render/render-task.js';
import { bytesOrError } from './render-outcome.js';

export class InlineRenderer implements Renderer {
  async render(spec: RenderSpec): Promise<Uint8Array> {
    return bytesOrError(renderTask(spec), spec);
  }

  async close(): Promise<void> {}
}
