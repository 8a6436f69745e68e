// Writes a QR matrix as SVG: one background rect and one path of horizontal runs.
import { parseColour } from '../domain/render-options.js';
import type { QrMatrix } from './qr-matrix.js';

export function fillAttributes(canonical: string): string {
  const { a } = parseColour(canonical);
  const rgb = canonical.slice(0, 7);
  return a === 255 ? `fill="${rgb}"` : `fill="${rgb}" fill-opacity="${(a / 255).toFixed(3)}"`;
}

/**
 * Each run of dark modules in a row as (x, y, length) in module units from the matrix's corner: the geometry of every
 * vector writer.
 */
export function forEachDarkRun(matrix: QrMatrix, draw: (x: number, y: number, length: number) => void): void {
  const n = matrix.size;
  for (let y = 0; y < n; y++) {
    let x = 0;
    while (x < n) {
      if (matrix.modules[y * n + x] === 0) {
        x++;
        continue;
      }
      const start = x;
      while (x < n && matrix.modules[y * n + x] === 1) x++;
      draw(start, y, x - start);
    }
  }
}

/** One subpath per run of dark modules in a row keeps the file small and crisp at any scale. */
function darkRunsPath(matrix: QrMatrix, margin: number): string {
  const parts: string[] = [];
  forEachDarkRun(matrix, (x, y, length) => parts.push(`M${x + margin} ${y + margin}h${length}v1h-${length}z`));
  return parts.join('');
}

/**
 * The width and height attributes: pixels, or with sizeMm the physical size (the height scaled as the image's own
 * ratio).
 */
export function svgDimensions(width: number, height: number, sizeMm: number | undefined): string {
  if (sizeMm === undefined) return `width="${width}" height="${height}"`;
  const mm = (v: number) => Number(v.toFixed(4)).toString();
  return `width="${mm(sizeMm)}mm" height="${mm((sizeMm * height) / width)}mm"`;
}

export function writeSvg(
  matrix: QrMatrix,
  size: number,
  margin: number,
  darkColor: string,
  lightColor: string,
  sizeMm?: number,
): string {
  const total = matrix.size + 2 * margin;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" ${svgDimensions(size, size, sizeMm)} ` +
    `viewBox="0 0 ${total} ${total}" shape-rendering="crispEdges">` +
    `<rect width="${total}" height="${total}" ${fillAttributes(lightColor)}/>` +
    `<path ${fillAttributes(darkColor)} d="${darkRunsPath(matrix, margin)}"/>` +
    `</svg>`
  );
}
