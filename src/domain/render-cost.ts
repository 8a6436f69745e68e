// What a render weighs for admission: units of one 512 px image.
import type { RenderSpec } from './render-options.js';

/**
 * A 512 px image is one unit of render cost; cost grows with pixels (2048 px: 16). Vector output (SVG, PDF, EPS) costs
 * one unit at any size.
 */
const UNIT_PIXELS = 512 * 512;

export function renderCost(spec: Pick<RenderSpec, 'format' | 'size'>): number {
  return spec.format === 'svg' || spec.format === 'pdf' || spec.format === 'eps'
    ? 1
    : Math.max(1, (spec.size * spec.size) / UNIT_PIXELS);
}
