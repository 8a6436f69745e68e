// Piscina task entry: the render task (one spec, or a batch group of them), run on a worker thread.
import type { RenderSpec } from '../src/domain/render-options.js';
import { DesignCaches } from '../src/render/branded/design-caches.js';
import { renderThreadTask } from '../src/render/render-task.js';

// This file is the thread's composition root: the thread's caches for branded designs live as long as the thread.
const caches = new DesignCaches();

export default function render(task: RenderSpec | RenderSpec[]) {
  return renderThreadTask(task, caches);
}
