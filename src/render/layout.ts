// Fits a module matrix into a square image: whole pixels per module, centred, quiet zone around it.
import { MIN_MODULE_PIXELS } from '../domain/render-options.js';
import type { QrMatrix } from './qr-matrix.js';

export interface ImageLayout {
  /** Image side in pixels (exactly the requested size). */
  side: number;
  /** Pixels per module. */
  scale: number;
  /** Pixel offset of the first module (quiet zone plus centring slack). */
  offset: number;
  /** Modules per side including the quiet zone. */
  totalModules: number;
}

export class SizeTooSmallError extends Error {
  constructor(readonly minimumSize: number) {
    super(`size must be at least ${minimumSize} px for this content and margin`);
  }
}

/** Whole-pixel modules keep edges sharp for every scanner; leftover pixels widen the quiet zone. */
export function layoutFor(matrix: QrMatrix, size: number, margin: number): ImageLayout {
  const totalModules = matrix.size + 2 * margin;
  const scale = Math.floor(size / totalModules);
  if (scale < MIN_MODULE_PIXELS) throw new SizeTooSmallError(MIN_MODULE_PIXELS * totalModules);
  const slack = size - scale * totalModules;
  return { side: size, scale, totalModules, offset: Math.floor(slack / 2) + margin * scale };
}
