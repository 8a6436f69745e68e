// One render as a task: image bytes, or the reason it cannot be drawn, as plain data that crosses threads.
import type { RenderSpec } from '../domain/render-options.js';
import { SizeTooSmallError } from './layout.js';
import { PayloadTooLongError } from './qr-matrix.js';
import { renderImage } from './render-image.js';

export type RenderTaskResult =
  { ok: true; bytes: Uint8Array } | { ok: false; reason: 'too_long'; limit: number } | { ok: false; reason: 'size_too_small'; minimumSize: number };

/** The render thread's one entry: a spec (a request), or a group of specs (batch items: one hop for many renders). */
export function renderThreadTask(task: RenderSpec | RenderSpec[]): RenderTaskResult | RenderTaskResult[] {
  return Array.isArray(task) ? task.map(renderTask) : renderTask(task);
}

// Errors travel as data: class identity does not survive structured clone between threads.
export function renderTask(spec: RenderSpec): RenderTaskResult {
  try {
    return { ok: true, bytes: renderImage(spec) };
  } catch (error) {
    if (error instanceof PayloadTooLongError) return { ok: false, reason: 'too_long', limit: error.limit };
    if (error instanceof SizeTooSmallError) return { ok: false, reason: 'size_too_small', minimumSize: error.minimumSize };
    throw error;
  }
}
