// Builds the service's renderer from configuration: the worker pool, with cheap renders routed inline.
import type { Config } from '../../config.js';
import type { Renderer } from '../../domain/ports/renderer.js';
import { SILENT_LOG, type AdapterLog } from '../adapter-log.js';
import { InlineRenderer } from './inline-renderer.js';
import { RenderPool } from './render-pool.piscina.js';
import { RoutingRenderer } from './routing-renderer.js';

export type RendererConfig = Pick<Config, 'renderThreads' | 'renderMaxQueue' | 'renderInlineMaxPixels'>;

/** A one-module render through the given renderer (the pool itself, so a thread must answer): readiness of the render path. */
export function rendererProbe(pool: Renderer): () => Promise<void> {
  return async () => {
    await pool.render({ payload: 'ready', format: 'svg', size: 64, margin: 0, errorCorrection: 'L', darkColor: '#000000ff', lightColor: '#ffffffff' });
  };
}

export function createRenderer(config: RendererConfig, log: AdapterLog = SILENT_LOG): { renderer: Renderer; probe: () => Promise<void> } {
  const pool = new RenderPool({
    threads: config.renderThreads,
    maxQueue: config.renderMaxQueue,
    onThreadError: (err) => log.warn({ err }, 'a render thread died outside a task; the pool replaces it'),
  });
  if (config.renderInlineMaxPixels === 0) return { renderer: pool, probe: rendererProbe(pool) };
  // Payloads past ~600 bytes reach versions whose matrix alone costs more than the thread hop.
  const renderer = new RoutingRenderer(new InlineRenderer(), pool, { inlineMaxPixels: config.renderInlineMaxPixels, inlineMaxPayloadBytes: 600 });
  return { renderer, probe: rendererProbe(pool) };
}
