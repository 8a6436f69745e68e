// Writes a QR matrix as SVG: one background rect and one path of horizontal runs.
import { parseColour } from '../domain/render-options.js';
import type { QrMatrix } from './qr-matrix.js';

export function fillAttributes(canonical: string): string {
  const { a } = parseColour(canonical);
  const rgb = canonical.slice(0, 7);
  return a === 255 ? `fill="${rgb}"` : `fill="${rgb}" fill-opacity="${(a / 255).toFixed(3)}"`;
}

/** One subpath per run of dark modules in a row keeps the file small and crisp at any scale. */
function darkRunsPath(matrix: QrMatrix, margin: number): string {
  const parts: string[] = [];
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
      parts.push(`M${start + margin} ${y + margin}h${x - start}v1h-${x - start}z`);
    }
  }
  return parts.join('');
}

export function writeSvg(matrix: QrMatrix, size: number, margin: number, darkColor: string, lightColor: string): string {
  const total = matrix.size + 2 * margin;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${total} ${total}" shape-rendering="crispEdges">` +
    `<rect width="${total}" height="${total}" ${fillAttributes(lightColor)}/>` +
    `<path ${fillAttributes(darkColor)} d="${darkRunsPath(matrix, margin)}"/>` +
    `</svg>`
  );
}
