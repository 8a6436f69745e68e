// Renders one spec to image bytes: matrix, layout, then the writer for the format.
import type { RenderedImage } from '../domain/rendered-image.js';
import type { RenderSpec } from '../domain/render-options.js';
import { layoutFor } from './layout.js';
import { writePng } from './png-writer.js';
import { buildMatrix, drawnSymbol, type QrMatrix } from './qr-matrix.js';
import { writeSvg } from './svg-writer.js';
import { writeWebp } from './webp-writer.js';
import { withWebpDensity } from './webp-density.js';
import { writeEps } from './vector/eps-writer.js';
import { writePdf } from './vector/pdf-writer.js';
import { plainArt } from './vector/print-art.js';

/** The image's bytes alone. */
export function renderImage(spec: RenderSpec): Uint8Array {
  return drawImage(spec).bytes;
}

/** Synchronous CPU work only: it runs inline on the event loop or on a pool thread alike. */
export function drawImage(spec: RenderSpec): RenderedImage {
  const matrix = buildMatrix(spec.payload, spec.errorCorrection, { eci: spec.eci === true });
  return { bytes: writeImage(spec, matrix), symbol: drawnSymbol(matrix, spec.errorCorrection) };
}

function writeImage(spec: RenderSpec, matrix: QrMatrix): Uint8Array {
  switch (spec.format) {
    case 'png':
      return writePng(
        matrix,
        layoutFor(matrix, spec.size, spec.margin),
        spec.darkColor,
        spec.lightColor,
        undefined,
        spec.dpi,
      );
    case 'webp':
      return withWebpDensity(
        writeWebp(matrix, layoutFor(matrix, spec.size, spec.margin), spec.darkColor, spec.lightColor),
        spec.dpi,
      );
    case 'svg':
      // Drawn from the matrix, yet held to the rasters' smallest size: symbolFit, the check before metering, promises
      // it.
      layoutFor(matrix, spec.size, spec.margin);
      return Buffer.from(writeSvg(matrix, spec.size, spec.margin, spec.darkColor, spec.lightColor, spec.sizeMm));
    case 'pdf':
      return writePdf(plainArt(spec, matrix));
    case 'eps':
      return writeEps(plainArt(spec, matrix));
  }
}
