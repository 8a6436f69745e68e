// Where the slow readers look, and at what scale: around each code ZXing found, or the whole image scaled down.

/** A code's corners in the image, as ZXing gives them. */
export type Corners = Record<'topLeft' | 'topRight' | 'bottomLeft' | 'bottomRight', { x: number; y: number }>;

/** A rectangle of the image (pixels) and the side lengths it is scaled to before a reader sees it. */
export interface Region {
  left: number;
  top: number;
  width: number;
  height: number;
  scaledWidth: number;
  scaledHeight: number;
}

/** zbar's and jsQR's time grows with the pixels they are given: no region they see is larger. */
export const SLOW_READER_MAX_PIXELS = 1024 * 1024;
/**
 * jsQR on a whole image, when ZXing found no code, gets a quarter of that: on noise it spends 1.5–3.5 s a megapixel
 * (every speck a finder candidate), and a code ZXing could not find is rarely one jsQR finds in a smaller picture.
 */
export const JSQR_WHOLE_IMAGE_MAX_PIXELS = 512 * 512;
/** Pixels a module needs for jsQR and zbar to sample it; a larger code is scaled down to this. */
const PIXELS_PER_MODULE = 8;
/** Quiet zone (4 modules) and a little more, so a rotated code's corners stay in the region. */
const MARGIN_MODULES = 6;

/** The side lengths that keep the region within `maxPixels` (and never larger than it is). */
function scaled(
  width: number,
  height: number,
  factor: number,
  maxPixels: number,
): { scaledWidth: number; scaledHeight: number } {
  const fit = Math.min(1, factor, Math.sqrt(maxPixels / (width * height)));
  return { scaledWidth: Math.max(1, Math.round(width * fit)), scaledHeight: Math.max(1, Math.round(height * fit)) };
}

/** The whole image, scaled down to at most `maxPixels`. */
export function wholeImage(width: number, height: number, maxPixels = SLOW_READER_MAX_PIXELS): Region {
  return { left: 0, top: 0, width, height, ...scaled(width, height, 1, maxPixels) };
}

/**
 * The region around a code ZXing found (its corners and version), with its quiet zone, clipped to the image; scaled
 * so a module is about PIXELS_PER_MODULE pixels (a code that is already smaller is left as it is).
 */
export function regionAround(
  position: Corners,
  version: number,
  width: number,
  height: number,
  maxPixels = SLOW_READER_MAX_PIXELS,
): Region {
  const corners = [position.topLeft, position.topRight, position.bottomLeft, position.bottomRight];
  const xs = corners.map((point) => point.x);
  const ys = corners.map((point) => point.y);
  const side = Math.max(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys), 1);
  const modules = 17 + 4 * Math.min(40, Math.max(1, version || 1));
  const margin = Math.ceil((side / modules) * MARGIN_MODULES) + 2;
  const left = Math.max(0, Math.floor(Math.min(...xs) - margin));
  const top = Math.max(0, Math.floor(Math.min(...ys) - margin));
  const right = Math.min(width, Math.ceil(Math.max(...xs) + margin));
  const bottom = Math.min(height, Math.ceil(Math.max(...ys) + margin));
  const regionWidth = Math.max(1, right - left);
  const regionHeight = Math.max(1, bottom - top);
  const factor = (modules * PIXELS_PER_MODULE) / side;
  return {
    left,
    top,
    width: regionWidth,
    height: regionHeight,
    ...scaled(regionWidth, regionHeight, factor, maxPixels),
  };
}
