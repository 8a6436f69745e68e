// Path construction operators shared by the PDF content stream and the EPS (whose prolog defines m, l, c, h and re as
// PDF names them).
import { forEachDarkRun } from '../svg-writer.js';
import type { QrMatrix } from '../qr-matrix.js';
import type { Placement } from './print-art.js';
import { pathSegments } from './svg-path.js';

/** Four decimals of a point: a ten-thousandth of a point is far below any printer's dot. */
export const num = (v: number): string => {
  const rounded = Math.round(v * 10_000) / 10_000;
  return Object.is(rounded, -0) ? '0' : String(rounded);
};

/** SVG path data as m/l/c/h operators, placed on the page. */
export function pathOps(d: string, at: Placement): string {
  const x = (v: number) => num(at.k * v + at.tx);
  const y = (v: number) => num(at.k * v + at.ty);
  const ops: string[] = [];
  for (const s of pathSegments(d)) {
    if (s.op === 'Z') ops.push('h');
    else if (s.op === 'C') ops.push(`${x(s.x1)} ${y(s.y1)} ${x(s.x2)} ${y(s.y2)} ${x(s.x)} ${y(s.y)} c`);
    else ops.push(`${x(s.x)} ${y(s.y)} ${s.op === 'M' ? 'm' : 'l'}`);
  }
  return ops.join('\n');
}

/**
 * The dark runs as unit-high rectangles in module units (small integers), and the transformation matrix that scales
 * modules to points.
 */
export function runOps(matrix: QrMatrix, at: Placement): { transform: string; path: string } {
  const rects: string[] = [];
  forEachDarkRun(matrix, (x, y, length) => rects.push(`${x} ${y} ${length} 1 re`));
  return { transform: `${num(at.k)} 0 0 ${num(at.k)} ${num(at.tx)} ${num(at.ty)}`, path: rects.join('\n') };
}

export function rectOps(x: number, y: number, width: number, height: number): string {
  return `${num(x)} ${num(y)} ${num(width)} ${num(height)} re`;
}
