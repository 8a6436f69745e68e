// Piscina task entry: the render task (one spec, or a batch group of them, maybe written to files here), run on a
// worker thread.
import { writeItemFile } from '../src/adapters/files/batch-results.files.js';
import type { RenderSpec } from '../src/domain/render-options.js';
import { DesignCaches } from '../src/render/branded/design-caches.js';
import {
  renderThreadTask,
  type RenderTaskResult,
  type StoredGroupTask,
  type StoredTaskResult,
} from '../src/render/render-task.js';

// This file is the thread's composition root: the thread's caches for branded designs live as long as the thread.
const caches = new DesignCaches();

/** Each image this thread drew goes to its file (as the batch results' put would write it); only refusals come back. */
function store(results: RenderTaskResult[], files: readonly string[]): StoredTaskResult[] {
  return results.map((result, i) => {
    if (!result.ok) return result;
    writeItemFile(files[i]!, result.bytes);
    return { ok: true, stored: true };
  });
}

export default function render(task: RenderSpec | RenderSpec[] | StoredGroupTask) {
  if (Array.isArray(task) || !('files' in task)) return renderThreadTask(task, caches);
  const results = renderThreadTask(task.specs, caches) as RenderTaskResult[] | Promise<RenderTaskResult[]>;
  return results instanceof Promise ? results.then((done) => store(done, task.files)) : store(results, task.files);
}
