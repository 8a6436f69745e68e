// Module and finder shapes, once as point-inside tests (for the raster) and once as SVG path data (for SVG): the same
// geometry.
import type { FinderShape, ModuleShape } from '../../domain/branding.js';

/** Inside test in the shape's own units: a module is the unit square, a finder the 7 × 7 square. */
export type Inside = (x: number, y: number) => boolean;

const DOT_RADIUS = 0.45;
const MODULE_CORNER = 0.35;
// Finder geometry (module units): outer ring 7 wide, hole 5 wide, centre 3 wide, with corner radii for the rounded
// shape.
const FINDER_CORNERS = { outer: 2, hole: 1.25, centre: 0.9 } as const;

function inRoundedRect(x: number, y: number, left: number, top: number, side: number, radius: number): boolean {
  if (x < left || y < top || x > left + side || y > top + side) return false;
  const cx = Math.min(Math.max(x, left + radius), left + side - radius);
  const cy = Math.min(Math.max(y, top + radius), top + side - radius);
  return (x - cx) ** 2 + (y - cy) ** 2 <= radius * radius;
}

/**
 * The "circle" finder's ring is a superellipse |x|^3 + |y|^3 = r^3: a true circle ring fails zbar on a
 * third of codes (it fits straight lines to the finder's outer edges), exponent 3 passed every code of
 * our corpus in zbar and ZXing while still reading as round. The centre is a true disc.
 */
const SQUIRCLE_EXPONENT = 3;

function inSquircle(dx: number, dy: number, radius: number): boolean {
  return (dx / radius) ** SQUIRCLE_EXPONENT + (dy / radius) ** SQUIRCLE_EXPONENT <= 1;
}

/** The superellipse as a closed polygon fine enough to match the raster's edge at any size we draw. */
function squirclePath(cx: number, cy: number, radius: number): string {
  const points: string[] = [];
  const steps = 96;
  for (let i = 0; i < steps; i++) {
    const angle = (2 * Math.PI * i) / steps;
    const c = Math.cos(angle);
    const s = Math.sin(angle);
    const k = radius / (Math.abs(c) ** SQUIRCLE_EXPONENT + Math.abs(s) ** SQUIRCLE_EXPONENT) ** (1 / SQUIRCLE_EXPONENT);
    points.push(`${n(cx + k * c)} ${n(cy + k * s)}`);
  }
  return `M${points.join('L')}z`;
}

export function moduleInside(shape: ModuleShape): Inside {
  switch (shape) {
    case 'square':
      return () => true;
    case 'rounded':
      return (x, y) => inRoundedRect(x, y, 0, 0, 1, MODULE_CORNER);
    case 'dots':
      return (x, y) => (x - 0.5) ** 2 + (y - 0.5) ** 2 <= DOT_RADIUS * DOT_RADIUS;
  }
}

export function finderInside(shape: FinderShape): Inside {
  switch (shape) {
    case 'square':
      return (x, y) =>
        (inRoundedRect(x, y, 0, 0, 7, 0) && !inRoundedRect(x, y, 1, 1, 5, 0)) || inRoundedRect(x, y, 2, 2, 3, 0);
    case 'rounded':
      return (x, y) =>
        (inRoundedRect(x, y, 0, 0, 7, FINDER_CORNERS.outer) && !inRoundedRect(x, y, 1, 1, 5, FINDER_CORNERS.hole)) ||
        inRoundedRect(x, y, 2, 2, 3, FINDER_CORNERS.centre);
    case 'circle':
      return (x, y) => {
        const dx = Math.abs(x - 3.5);
        const dy = Math.abs(y - 3.5);
        return (inSquircle(dx, dy, 3.5) && !inSquircle(dx, dy, 2.5)) || dx * dx + dy * dy <= 1.5 * 1.5;
      };
  }
}

const n = (v: number) => Number(v.toFixed(3)).toString();

/**
 * A rounded square as a path (radius 0: a plain square); drawn clockwise, so an anticlockwise one inside it is a hole
 * under evenodd.
 */
function roundedRectPath(left: number, top: number, side: number, radius: number): string {
  if (radius === 0) return `M${n(left)} ${n(top)}h${n(side)}v${n(side)}h${n(-side)}z`;
  const straight = side - 2 * radius;
  const r = n(radius);
  return (
    `M${n(left + radius)} ${n(top)}h${n(straight)}a${r} ${r} 0 0 1 ${r} ${r}v${n(straight)}a${r} ${r} 0 0 1 -` +
    `${r} ${r}` +
    `h${n(-straight)}a${r} ${r} 0 0 1 -${r} -${r}v${n(-straight)}a${r} ${r} 0 0 1 ${r} -${r}z`
  );
}

function circlePath(cx: number, cy: number, radius: number): string {
  const r = n(radius);
  return `M${n(cx - radius)} ${n(cy)}a${r} ${r} 0 1 0 ${n(2 * radius)} 0a${r} ${r} 0 1 0 ${n(-2 * radius)} 0z`;
}

/** Path data of one module at (x, y), in module units. */
export function modulePath(shape: ModuleShape, x: number, y: number): string {
  switch (shape) {
    case 'square':
      return `M${x} ${y}h1v1h-1z`;
    case 'rounded':
      return roundedRectPath(x, y, 1, MODULE_CORNER);
    case 'dots':
      return circlePath(x + 0.5, y + 0.5, DOT_RADIUS);
  }
}

/**
 * Path data of one finder pattern with its top-left at (x, y); fill it with fill-rule evenodd (the ring is a hole in a
 * disc).
 */
export function finderPath(shape: FinderShape, x: number, y: number): string {
  switch (shape) {
    case 'square':
      return roundedRectPath(x, y, 7, 0) + roundedRectPath(x + 1, y + 1, 5, 0) + roundedRectPath(x + 2, y + 2, 3, 0);
    case 'rounded':
      return (
        roundedRectPath(x, y, 7, FINDER_CORNERS.outer) +
        roundedRectPath(x + 1, y + 1, 5, FINDER_CORNERS.hole) +
        roundedRectPath(x + 2, y + 2, 3, FINDER_CORNERS.centre)
      );
    case 'circle':
      return (
        squirclePath(x + 3.5, y + 3.5, 3.5) + squirclePath(x + 3.5, y + 3.5, 2.5) + circlePath(x + 3.5, y + 3.5, 1.5)
      );
  }
}
