// One render as a task: image bytes, or the reason it cannot be drawn, as plain data that crosses threads.
import type { DrawnSymbol } from '../domain/rendered-image.js';
import type { RenderSpec } from '../domain/render-options.js';
import type { DesignCaches } from './branded/design-caches.js';
import { drawDesign, UnscannableDesignError } from './branded/render-design.js';
import { SizeTooSmallError } from './layout.js';
import { PayloadTooLongError } from './qr-matrix.js';
import { drawImage } from './render-image.js';
import type { SymbolFit } from './symbol-fit.js';

/**
 * Why a spec cannot be drawn, as plain data: the symbol's own refusals (symbolFit's too_long, size_too_small) or the
 * scan check's.
 */
export type RenderRefusal =
  | Exclude<SymbolFit, { ok: true }>
  | { ok: false; reason: 'unscannable'; detail: string; changes: string[]; maxLogoScale?: number | undefined };

export type RenderTaskResult = { ok: true; bytes: Uint8Array; symbol: DrawnSymbol } | RenderRefusal;

/** A batch group whose images the thread writes to these files itself (one per spec), answering only refusals. */
export interface StoredGroupTask {
  specs: RenderSpec[];
  files: string[];
}

/** A stored group's answer per spec: its image is in its file, or why it could not be drawn. */
export type StoredTaskResult = { ok: true; stored: true } | RenderRefusal;

/** The render thread's one entry: a spec (a request), or a group of specs (batch items: one hop for many renders). */
export function renderThreadTask(
  task: RenderSpec | RenderSpec[],
  caches: DesignCaches,
): RenderTaskResult | Promise<RenderTaskResult> | Promise<RenderTaskResult[]> | RenderTaskResult[] {
  if (!Array.isArray(task)) return renderTask(task, caches);
  const results = task.map((spec) => renderTask(spec, caches));
  // A group stays synchronous unless one of its items is branded.
  return results.some((result) => result instanceof Promise) ? Promise.all(results) : (results as RenderTaskResult[]);
}

// Errors travel as data: class identity does not survive structured clone between threads.
function failure(error: unknown): RenderRefusal {
  if (error instanceof PayloadTooLongError) return { ok: false, reason: 'too_long', limit: error.limit };
  if (error instanceof SizeTooSmallError)
    return { ok: false, reason: 'size_too_small', minimumSize: error.minimumSize };
  if (error instanceof UnscannableDesignError)
    return {
      ok: false,
      reason: 'unscannable',
      detail: error.message,
      changes: error.changes,
      maxLogoScale: error.maxLogoScale,
    };
  throw error;
}

async function brandedTask(spec: RenderSpec, caches: DesignCaches): Promise<RenderTaskResult> {
  try {
    return { ok: true, ...(await drawDesign(spec, spec.branding!, caches)) };
  } catch (error) {
    return failure(error);
  }
}

/**
 * Plain specs stay synchronous (the fast path); branded ones are async (sharp for logos and captions, the scan check).
 */
export function renderTask(spec: RenderSpec, caches: DesignCaches): RenderTaskResult | Promise<RenderTaskResult> {
  if (spec.branding) return brandedTask(spec, caches);
  try {
    return { ok: true, ...drawImage(spec) };
  } catch (error) {
    return failure(error);
  }
}
