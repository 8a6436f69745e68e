// Where each part of a branded image goes: the code's module grid, the cleared square and logo box, the caption band.
import { clearedSide, type Branding } from '../../domain/branding.js';
import { layoutFor, type ImageLayout } from '../layout.js';
import type { QrMatrix } from '../qr-matrix.js';

export interface DesignLayout extends ImageLayout {
  /** Image height: the code's square plus the caption band, if any. */
  height: number;
  /** Caption band height in pixels (0 without a frame). */
  bandHeight: number;
  /** The cleared square behind the logo, in modules: first module and modules per side (side 0: no logo). */
  cleared: { start: number; side: number };
  /** The logo's box in pixels, centred in the cleared square. */
  logoBox: { left: number; top: number; side: number };
}

/** Band height as a share of the image side: room for a caption readable at arm's length. */
const BAND_SHARE = 0.16;

export function designLayout(matrix: QrMatrix, size: number, margin: number, branding: Branding): DesignLayout {
  const base = layoutFor(matrix, size, margin);
  const bandHeight = branding.frame ? Math.round(size * BAND_SHARE) : 0;
  const side = branding.logo ? clearedSide(matrix.size, branding.logo.scale) : 0;
  const start = (matrix.size - side) / 2;
  const logoSide = branding.logo ? Math.round(branding.logo.scale * matrix.size * base.scale) : 0;
  const centre = base.offset + (matrix.size * base.scale) / 2;
  const logoStart = Math.round(centre - logoSide / 2);
  return {
    ...base,
    height: size + bandHeight,
    bandHeight,
    cleared: { start, side },
    logoBox: { left: logoStart, top: logoStart, side: logoSide },
  };
}

/** Modules under a finder pattern (drawn as one shape each) or the logo's cleared square are not drawn one by one. */
export function isReservedModule(layout: DesignLayout, matrixSize: number, x: number, y: number): boolean {
  if ((x < 7 && y < 7) || (x >= matrixSize - 7 && y < 7) || (x < 7 && y >= matrixSize - 7)) return true;
  const { start, side } = layout.cleared;
  return side > 0 && x >= start && x < start + side && y >= start && y < start + side;
}

/** Centres of the alignment patterns (ISO/IEC 18004 Annex E), those under a finder left out. */
export function alignmentCentres(matrixSize: number): Array<[number, number]> {
  const version = (matrixSize - 17) / 4;
  if (version < 2) return [];
  const count = Math.floor(version / 7) + 2;
  const step = version === 32 ? 26 : Math.ceil((matrixSize - 13) / (2 * count - 2)) * 2;
  const positions = [6];
  for (let at = matrixSize - 7; positions.length < count; at -= step) positions.splice(1, 0, at);
  const last = positions.length - 1;
  return positions.flatMap((y, j) =>
    positions.flatMap((x, i) =>
      (i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0) ? [] : [[x, y] as [number, number]],
    ),
  );
}

/**
 * Alignment patterns are drawn as plain square modules whatever the module shape: decoders that find them
 * by their 1:1:1 run lengths (jsQR, to correct perspective) lose them as rings of dots (measured: dots
 * with dotted alignment patterns read on jsQR for 26 of 48 codes, 48 of 48 with square ones).
 */
export function isAlignmentModule(centres: ReadonlyArray<[number, number]>, x: number, y: number): boolean {
  return centres.some(([cx, cy]) => Math.abs(x - cx) <= 2 && Math.abs(y - cy) <= 2);
}

/** Top-left module of each of the three finder patterns. */
export function finderOrigins(matrixSize: number): Array<[number, number]> {
  return [
    [0, 0],
    [matrixSize - 7, 0],
    [0, matrixSize - 7],
  ];
}
