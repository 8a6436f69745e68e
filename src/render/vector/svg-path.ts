// SVG path data (the shapes' and the caption font's) as absolute moves, lines and cubic curves: what PDF and PostScript
// draw.

/** One drawing step in absolute coordinates: move, line, cubic Bézier, close. */
export type Segment =
  | { op: 'M' | 'L'; x: number; y: number }
  | { op: 'C'; x1: number; y1: number; x2: number; y2: number; x: number; y: number }
  | { op: 'Z' };

/** A command letter or a number (the path writers emit plain decimals; exponents are read too). */
const TOKEN = /[MmLlHhVvCcQqAaZz]|-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?/g;

/** Converts the commands our writers and font use (M L H V C Q A Z, absolute and relative) to Segments. */
export function pathSegments(d: string): Segment[] {
  const tokens = d.match(TOKEN) ?? [];
  const out: Segment[] = [];
  let i = 0;
  let command = '';
  let x = 0;
  let y = 0;
  let startX = 0;
  let startY = 0;
  const num = () => Number(tokens[i++]);
  while (i < tokens.length) {
    const token = tokens[i]!;
    if (/^[A-Za-z]$/.test(token)) {
      command = token;
      i++;
      if (command === 'Z' || command === 'z') {
        out.push({ op: 'Z' });
        x = startX;
        y = startY;
        continue;
      }
    }
    const relative = command === command.toLowerCase();
    const ox = relative ? x : 0;
    const oy = relative ? y : 0;
    switch (command.toUpperCase()) {
      case 'M':
        x = ox + num();
        y = oy + num();
        startX = x;
        startY = y;
        out.push({ op: 'M', x, y });
        command = relative ? 'l' : 'L'; // further pairs after a move are lines
        break;
      case 'L':
        x = ox + num();
        y = oy + num();
        out.push({ op: 'L', x, y });
        break;
      case 'H':
        x = ox + num();
        out.push({ op: 'L', x, y });
        break;
      case 'V':
        y = oy + num();
        out.push({ op: 'L', x, y });
        break;
      case 'C': {
        const x1 = ox + num();
        const y1 = oy + num();
        const x2 = ox + num();
        const y2 = oy + num();
        x = ox + num();
        y = oy + num();
        out.push({ op: 'C', x1, y1, x2, y2, x, y });
        break;
      }
      case 'Q': {
        // A quadratic is the cubic with control points 2/3 of the way to its one control point.
        const qx = ox + num();
        const qy = oy + num();
        const ex = ox + num();
        const ey = oy + num();
        out.push({
          op: 'C',
          x1: x + (2 / 3) * (qx - x),
          y1: y + (2 / 3) * (qy - y),
          x2: ex + (2 / 3) * (qx - ex),
          y2: ey + (2 / 3) * (qy - ey),
          x: ex,
          y: ey,
        });
        x = ex;
        y = ey;
        break;
      }
      case 'A': {
        const rx = num();
        const ry = num();
        const rotation = num();
        const large = num();
        const sweep = num();
        const ex = ox + num();
        const ey = oy + num();
        out.push(...arcSegments(x, y, rx, ry, rotation, large !== 0, sweep !== 0, ex, ey));
        x = ex;
        y = ey;
        break;
      }
      default:
        throw new Error(`unsupported SVG path command ${command}`);
    }
  }
  return out;
}

/**
 * An elliptical arc (SVG endpoint form, implementation notes F.6.5) as cubic Béziers of at most a quarter turn each.
 * Our shapes use circular arcs without rotation; the general form costs a few lines more and cannot surprise.
 */
function arcSegments(
  x1: number,
  y1: number,
  rx: number,
  ry: number,
  degrees: number,
  large: boolean,
  sweep: boolean,
  x2: number,
  y2: number,
): Segment[] {
  if (rx === 0 || ry === 0) return [{ op: 'L', x: x2, y: y2 }];
  const phi = (degrees * Math.PI) / 180;
  const cos = Math.cos(phi);
  const sin = Math.sin(phi);
  const dx = (x1 - x2) / 2;
  const dy = (y1 - y2) / 2;
  const xp = cos * dx + sin * dy;
  const yp = -sin * dx + cos * dy;
  rx = Math.abs(rx);
  ry = Math.abs(ry);
  const lambda = (xp * xp) / (rx * rx) + (yp * yp) / (ry * ry);
  if (lambda > 1) {
    rx *= Math.sqrt(lambda);
    ry *= Math.sqrt(lambda);
  }
  const numerator = rx * rx * ry * ry - rx * rx * yp * yp - ry * ry * xp * xp;
  const factor =
    (large === sweep ? -1 : 1) * Math.sqrt(Math.max(0, numerator / (rx * rx * yp * yp + ry * ry * xp * xp)));
  const cxp = (factor * rx * yp) / ry;
  const cyp = (-factor * ry * xp) / rx;
  const cx = cos * cxp - sin * cyp + (x1 + x2) / 2;
  const cy = sin * cxp + cos * cyp + (y1 + y2) / 2;
  const angle = (ux: number, uy: number, vx: number, vy: number) => Math.atan2(ux * vy - uy * vx, ux * vx + uy * vy);
  const start = angle(1, 0, (xp - cxp) / rx, (yp - cyp) / ry);
  let delta = angle((xp - cxp) / rx, (yp - cyp) / ry, (-xp - cxp) / rx, (-yp - cyp) / ry);
  if (!sweep && delta > 0) delta -= 2 * Math.PI;
  if (sweep && delta < 0) delta += 2 * Math.PI;
  const pieces = Math.max(1, Math.ceil(Math.abs(delta) / (Math.PI / 2) - 1e-9));
  const step = delta / pieces;
  const k = (4 / 3) * Math.tan(step / 4);
  const point = (t: number) => {
    const px = rx * Math.cos(t);
    const py = ry * Math.sin(t);
    return { x: cx + cos * px - sin * py, y: cy + sin * px + cos * py };
  };
  const tangent = (t: number) => {
    const px = -rx * Math.sin(t);
    const py = ry * Math.cos(t);
    return { x: cos * px - sin * py, y: sin * px + cos * py };
  };
  const out: Segment[] = [];
  for (let p = 0; p < pieces; p++) {
    const a = start + p * step;
    const b = a + step;
    const pa = point(a);
    const pb = p === pieces - 1 ? { x: x2, y: y2 } : point(b);
    const ta = tangent(a);
    const tb = tangent(b);
    out.push({
      op: 'C',
      x1: pa.x + k * ta.x,
      y1: pa.y + k * ta.y,
      x2: pb.x - k * tb.x,
      y2: pb.y - k * tb.y,
      x: pb.x,
      y: pb.y,
    });
  }
  return out;
}
