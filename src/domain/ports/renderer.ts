// Port: turns a render spec into image bytes.
import type { RenderSpec } from '../render-options.js';

export interface RendererStats {
  threads: number;
  queueSize: number;
  /** Share of thread time spent rendering since start, 0..1. */
  utilization: number;
}

/**
 * Contract: the returned bytes decode (with any standard QR reader) to exactly `spec.payload`.
 * Throws ApiError `content_too_long` (with the byte limit) when the payload does not fit a QR code
 * at the requested error correction, `invalid_request` when `size` is too small for the code, and
 * `overloaded` when the render queue is full.
 */
export interface Renderer {
  /** `key` is `renderKey(spec)` when the caller has already computed it (it is also the ETag), so caches need not hash again. */
  render(spec: RenderSpec, key?: string): Promise<Uint8Array>;
  /** Pool gauges for /metrics, where the renderer has a pool. */
  stats?(): RendererStats | undefined;
  close(): Promise<void>;
}
