// What a PDF or EPS draws, in points from the top-left: the same module runs as SVG, the branded design's shapes, logo
// and caption.
import type { Branding } from '../../domain/branding.js';
import { pointsFor, type Cmyk } from '../../domain/print.js';
import type { RenderSpec } from '../../domain/render-options.js';
import { designLayout, type DesignLayout } from '../branded/design-layout.js';
import { designPaths } from '../branded/design-svg.js';
import { captionGeometry } from '../frame/caption.js';
import type { QrMatrix } from '../qr-matrix.js';

/** A fill colour: the canonical #rrggbbaa, and the DeviceCMYK ink it was given as, if any. */
export interface Paint {
  hex: string;
  ink?: Cmyk | undefined;
}

/** x' = k·x + tx, y' = k·y + ty: how a layer's own units land on the page. */
export interface Placement {
  k: number;
  tx: number;
  ty: number;
}

export type Layer =
  | { kind: 'rect'; paint: Paint; x: number; y: number; width: number; height: number }
  /**
   * The dark modules of a plain code as runs of unit squares, in module units (exact squares, no anti-aliasing seams).
   */
  | { kind: 'runs'; paint: Paint; matrix: QrMatrix; at: Placement }
  /** SVG path data (shapes, glyphs) in its own units. */
  | { kind: 'path'; paint: Paint; evenOdd: boolean; d: string; at: Placement }
  /** The logo, fitted and centred in its square box. */
  | { kind: 'logo'; png: Uint8Array; x: number; y: number; side: number };

export interface PrintArt {
  /** Page or bounding box in points. */
  width: number;
  height: number;
  layers: Layer[];
  /** The light colour under the logo (EPS flattens a logo's transparency onto it). */
  background: Paint;
}

/**
 * A branded design is laid out at this many layout units a module: whole units, so the raster layout's offsets are
 * exact.
 */
export const UNITS_PER_MODULE = 8;

/** The page side in points: sizeMm when given, else `size` read as points. */
export function pageSide(spec: RenderSpec): number {
  return spec.sizeMm === undefined ? spec.size : pointsFor(spec.sizeMm);
}

function paintOf(spec: RenderSpec, hex: string): Paint {
  if (hex === spec.darkColor && spec.inks?.dark) return { hex, ink: spec.inks.dark };
  if (hex === spec.lightColor && spec.inks?.light) return { hex, ink: spec.inks.light };
  return { hex };
}

/** A plain code: the light square and the dark runs, each module exactly side / (modules + 2 × margin) points. */
export function plainArt(spec: RenderSpec, matrix: QrMatrix): PrintArt {
  const side = pageSide(spec);
  const unit = side / (matrix.size + 2 * spec.margin);
  const background = paintOf(spec, spec.lightColor);
  return {
    width: side,
    height: side,
    background,
    layers: [
      { kind: 'rect', paint: background, x: 0, y: 0, width: side, height: side },
      {
        kind: 'runs',
        paint: paintOf(spec, spec.darkColor),
        matrix,
        at: { k: unit, tx: spec.margin * unit, ty: spec.margin * unit },
      },
    ],
  };
}

/**
 * The layout a branded print is drawn from: the raster's (design-layout.ts) at UNITS_PER_MODULE, so shapes, logo box
 * and band agree with PNG and SVG.
 */
export function printLayout(spec: RenderSpec, matrix: QrMatrix, branding: Branding): DesignLayout {
  return designLayout(matrix, (matrix.size + 2 * spec.margin) * UNITS_PER_MODULE, spec.margin, branding);
}

/** A branded design: background, module shapes, finders, logo, and the caption band with the text as glyph outlines. */
export function brandedArt(spec: RenderSpec, branding: Branding, matrix: QrMatrix, layout: DesignLayout): PrintArt {
  const k = pageSide(spec) / layout.side; // points per layout unit
  const background = paintOf(spec, spec.lightColor);
  const { modules, finders } = designPaths(branding, matrix, layout);
  const grid: Placement = { k: k * layout.scale, tx: k * layout.offset, ty: k * layout.offset };
  const layers: Layer[] = [
    { kind: 'rect', paint: background, x: 0, y: 0, width: layout.side * k, height: layout.height * k },
    { kind: 'path', paint: paintOf(spec, spec.darkColor), evenOdd: false, d: modules, at: grid },
    { kind: 'path', paint: paintOf(spec, branding.finderColor), evenOdd: true, d: finders, at: grid },
  ];
  if (branding.logo?.png) {
    const { left, top, side } = layout.logoBox;
    layers.push({ kind: 'logo', png: branding.logo.png, x: left * k, y: top * k, side: side * k });
  }
  if (branding.frame) {
    const top = layout.side;
    layers.push({
      kind: 'rect',
      paint: paintOf(spec, branding.frame.color),
      x: 0,
      y: top * k,
      width: layout.side * k,
      height: layout.bandHeight * k,
    });
    const caption = captionGeometry(branding.frame.text, layout.side, top, layout.bandHeight);
    const text = paintOf(spec, spec.lightColor);
    for (const glyph of caption.glyphs) {
      const at = { k: k * caption.k, tx: k * (caption.left + caption.k * glyph.x), ty: k * caption.baseline };
      layers.push({ kind: 'path', paint: text, evenOdd: false, d: glyph.d, at });
    }
  }
  return { width: layout.side * k, height: layout.height * k, layers, background };
}
