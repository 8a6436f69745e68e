// Renders one spec to image bytes: matrix, layout, then the writer for the format.
import type { RenderSpec } from '../domain/render-options.js';
import { layoutFor } from './layout.js';
import { writePng } from './png-writer.js';
import { buildMatrix } from './qr-matrix.js';
import { writeSvg } from './svg-writer.js';
import { writeWebp } from './webp-writer.js';
import { withWebpDensity } from './webp-density.js';
import { writeEps } from './vector/eps-writer.js';
import { writePdf } from './vector/pdf-writer.js';
import { plainArt } from './vector/print-art.js';

/** Synchronous CPU work only: it runs inline on the event loop or on a pool thread alike. */
export function renderImage(spec: RenderSpec): Uint8Array {
  const matrix = buildMatrix(spec.payload, spec.errorCorrection, { eci: spec.eci === true });
  switch (spec.format) {
    case 'png':
      return writePng(matrix, layoutFor(matrix, spec.size, spec.margin), spec.darkColor, spec.lightColor, undefined, spec.dpi);
    case 'webp':
      return withWebpDensity(writeWebp(matrix, layoutFor(matrix, spec.size, spec.margin), spec.darkColor, spec.lightColor), spec.dpi);
    case 'svg':
      // Drawn from the matrix, yet held to the rasters' smallest size: symbolFit, the check before metering, promises it.
      layoutFor(matrix, spec.size, spec.margin);
      return Buffer.from(writeSvg(matrix, spec.size, spec.margin, spec.darkColor, spec.lightColor, spec.sizeMm));
    case 'pdf':
      return writePdf(plainArt(spec, matrix));
    case 'eps':
      return writeEps(plainArt(spec, matrix));
  }
}
