// Sends each render where it is cheapest: small ones inline on the event loop, large ones to the worker pool.
import type { Renderer, RendererStats } from '../../domain/ports/renderer.js';
import type { RenderSpec } from '../../domain/render-options.js';

/**
 * Inline when the image has at most `inlineMaxPixels` pixels and the payload is short: measured by
 * bench/run.ts, a 512 px PNG or WebP costs less to draw than Piscina's message round trip.
 */
export interface RoutingPolicy {
  inlineMaxPixels: number;
  inlineMaxPayloadBytes: number;
}

/** A branded render costs several times a plain one (RGBA, anti-aliasing, a logo): only the smaller ones stay on the event loop. */
const BRANDED_PIXEL_SHARE = 4;

export function rendersInline(spec: RenderSpec, policy: RoutingPolicy): boolean {
  if (spec.branding) return spec.size * spec.size <= policy.inlineMaxPixels / BRANDED_PIXEL_SHARE && spec.payload.length <= policy.inlineMaxPayloadBytes;
  return spec.size * spec.size <= policy.inlineMaxPixels && spec.payload.length <= policy.inlineMaxPayloadBytes;
}

export class RoutingRenderer implements Renderer {
  readonly #inline: Renderer;
  readonly #pool: Renderer;
  readonly #policy: RoutingPolicy;

  constructor(inline: Renderer, pool: Renderer, policy: RoutingPolicy) {
    this.#inline = inline;
    this.#pool = pool;
    this.#policy = policy;
  }

  render(spec: RenderSpec): Promise<Uint8Array> {
    return rendersInline(spec, this.#policy) ? this.#inline.render(spec) : this.#pool.render(spec);
  }

  stats(): RendererStats | undefined {
    return this.#pool.stats?.();
  }

  async close(): Promise<void> {
    await Promise.all([this.#inline.close(), this.#pool.close()]);
  }
}
