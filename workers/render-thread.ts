// Piscina task entry: renders one spec on a worker thread and reports failures as data, not throws.
import type { RenderSpec } from '../src/domain/render-options.js';
import { SizeTooSmallError } from '../src/render/layout.js';
import { PayloadTooLongError } from '../src/render/qr-matrix.js';
import { renderImage } from '../src/render/render-image.js';

export type RenderTaskResult =
  | { ok: true; bytes: Uint8Array }
  | { ok: false; reason: 'too_long'; limit: number }
  | { ok: false; reason: 'size_too_small'; minimumSize: number };

// Errors cross the thread boundary as plain data: class identity does not survive structured clone.
export default async function renderTask(spec: RenderSpec): Promise<RenderTaskResult> {
  try {
    return { ok: true, bytes: await renderImage(spec) };
  } catch (error) {
    if (error instanceof PayloadTooLongError) return { ok: false, reason: 'too_long', limit: error.limit };
    if (error instanceof SizeTooSmallError) return { ok: false, reason: 'size_too_small', minimumSize: error.minimumSize };
    throw error;
  }
}
