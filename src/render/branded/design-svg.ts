// Writes a branded design as SVG: the same shapes as the raster, the logo as an embedded data: image, the caption as
// outlines.
import { logoPng, type Branding } from '../../domain/branding.js';
import type { RenderSpec } from '../../domain/render-options.js';
import { captionSvg } from '../frame/caption.js';
import type { QrMatrix } from '../qr-matrix.js';
import { fillAttributes, svgDimensions } from '../svg-writer.js';
import {
  alignmentCentres,
  finderOrigins,
  isAlignmentModule,
  isReservedModule,
  type DesignLayout,
} from './design-layout.js';
import { finderPath, modulePath } from './shapes.js';

/**
 * The design's shapes as SVG path data in module units: the modules (nonzero fill) and the three finders (evenodd).
 * SVG, PDF and EPS draw these.
 */
export function designPaths(
  branding: Branding,
  matrix: QrMatrix,
  layout: DesignLayout,
): { modules: string; finders: string } {
  const n = matrix.size;
  const modules: string[] = [];
  const centres = alignmentCentres(n);
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      if (matrix.modules[y * n + x] !== 1 || isReservedModule(layout, n, x, y)) continue;
      modules.push(modulePath(isAlignmentModule(centres, x, y) ? 'square' : branding.moduleShape, x, y));
    }
  }
  const finders = finderOrigins(n)
    .map(([x, y]) => finderPath(branding.finderShape, x, y))
    .join('');
  return { modules: modules.join(''), finders };
}

/**
 * Pixel coordinates of the raster layout (whole-pixel modules, same offsets), so the SVG and the PNG
 * of a design match; modules are drawn in module units inside one scaling group. The logo is never an
 * external reference: viewers that block remote images (and QuickChart's users) would lose it.
 */
export function writeDesignSvg(spec: RenderSpec, branding: Branding, matrix: QrMatrix, layout: DesignLayout): string {
  const { modules, finders } = designPaths(branding, matrix, layout);
  const { side: width, height, scale, offset } = layout;
  const parts = [
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" ' +
      `${svgDimensions(width, height, spec.sizeMm)} viewBox="0 0 ${width} ${height}">`,
    `<rect width="${width}" height="${height}" ${fillAttributes(spec.lightColor)}/>`,
    `<g transform="translate(${offset} ${offset}) scale(${scale})">`,
    `<path ${fillAttributes(spec.darkColor)} d="${modules}"/>`,
    `<path ${fillAttributes(branding.finderColor)} fill-rule="evenodd" d="${finders}"/>`,
    `</g>`,
  ];
  if (branding.logo) {
    const { left, top, side } = layout.logoBox;
    const href = `data:image/png;base64,${Buffer.from(logoPng(branding.logo)).toString('base64')}`;
    parts.push(
      `<image x="${left}" y="${top}" width="${side}" height="${side}" preserveAspectRatio="xMidYMid meet" ` +
        `xlink:href="${href}"/>`,
    );
  }
  if (branding.frame)
    parts.push(
      captionSvg(branding.frame.text, width, spec.size, layout.bandHeight, branding.frame.color, spec.lightColor),
    );
  parts.push('</svg>');
  return parts.join('');
}
