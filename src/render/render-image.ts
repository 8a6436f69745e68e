// Renders one spec to image bytes: matrix, layout, then the writer for the format.
import type { RenderSpec } from '../domain/render-options.js';
import { layoutFor } from './layout.js';
import { writePng } from './png-writer.js';
import { buildMatrix } from './qr-matrix.js';
import { writeSvg } from './svg-writer.js';
import { writeWebp } from './webp-writer.js';

/** Synchronous CPU work only: it runs inline on the event loop or on a pool thread alike. */
export function renderImage(spec: RenderSpec): Uint8Array {
  const matrix = buildMatrix(spec.payload, spec.errorCorrection, { eci: spec.eci === true });
  const layout = layoutFor(matrix, spec.size, spec.margin);
  switch (spec.format) {
    case 'png':
      return writePng(matrix, layout, spec.darkColor, spec.lightColor);
    case 'webp':
      return writeWebp(matrix, layout, spec.darkColor, spec.lightColor);
    case 'svg':
      return Buffer.from(writeSvg(matrix, spec.size, spec.margin, spec.darkColor, spec.lightColor));
  }
}
