// Draws a branded design from cached art (shaped module and finder tiles, the logo, the caption band): as palette
// indices when it can.
import { designKey, logoPng, type Branding } from '../../domain/branding.js';
import type { RenderSpec } from '../../domain/render-options.js';
import { captionSvg } from '../frame/caption.js';
import type { QrMatrix } from '../qr-matrix.js';
import type { DesignCaches, RawImage } from './design-caches.js';
import { alignmentCentres, finderOrigins, isReservedModule, type DesignLayout } from './design-layout.js';
import type { DesignRowCodes } from './design-deflate.js';
import { composite, expandScanlines, packCanonical, paletteOf, shapeTile } from './pixels.js';
import { finderInside, moduleInside } from './shapes.js';
import { loadSharp } from '../imaging-libraries.js';

/**
 * A drawn design: palette indices when its colours fit a palette (the common case), laid out as PNG
 * scanlines (each row a filter byte, 0, then `width` indices) so the PNG writer filters them in place;
 * else packed RGBA pixels. `repeats[y]` is 1 when row y is drawn exactly as row y - 1 (known from how
 * it was drawn, so the writer need not compare rows).
 */
export type Raster = { width: number; height: number; repeats: Uint8Array } & (
  { scanlines: Uint8Array; palette: Uint32Array } | { pixels: Uint32Array }
);

/** Where pixel (x, y) of an image lives in `data`: at first + y * stride + x. */
interface Canvas<T extends Uint32Array | Uint8Array> {
  data: T;
  stride: number;
  first: number;
}

/** What a design draws besides its modules' places: the same for every payload at one layout. */
export interface ArtTiles<T extends Uint32Array | Uint8Array> {
  module: T;
  finder: T;
  /**
   * One pixel of the dark colour: the dark modules of the alignment squares (a shaped tile may hold no pixel fully
   * dark).
   */
  dark: T;
  logo?: T | undefined;
  band?: T | undefined;
}

/** A design's tiles as colours, and as indices into one palette when the whole design uses at most 256 colours. */
export interface DesignArt {
  /** Its key in DesignCaches.arts. */
  key: string;
  light: number;
  /** Whether alignment patterns are redrawn as square modules (see isAlignmentModule): every shape but the square. */
  squareAlignment: boolean;
  /**
   * For each pixel row of the module tile, the first row equal to it: a band row that repeats one above is copied
   * whole.
   */
  moduleRowSource: Uint16Array;
  /** For each pixel row of the finder, logo and band tiles: 1 when it equals the row above (see repeatedRows). */
  sameAsAbove: { finder: Uint8Array; logo?: Uint8Array | undefined; band?: Uint8Array | undefined };
  rgba: ArtTiles<Uint32Array>;
  indexed?: { palette: Uint32Array; tiles: ArtTiles<Uint8Array> } | undefined;
  /** What deflateDesign keeps of this art (tile rows' tokens and sums), made on its first use. */
  rowCodes?: DesignRowCodes;
}

/** The tile `key` names, made and kept on its first use. */
function cachedTile(caches: DesignCaches, key: string, make: () => Uint32Array): Uint32Array {
  let tile = caches.tiles.get(key);
  if (!tile) caches.tiles.set(key, (tile = make()));
  return tile;
}

/**
 * The stored logo resized to fit its box (aspect kept) and laid over the background colour, once per
 * logo, pixel size and background: a render then copies its rows like a tile.
 */
async function logoTile(
  caches: DesignCaches,
  logo: NonNullable<Branding['logo']>,
  side: number,
  light: number,
): Promise<Uint32Array> {
  const key = `l:${logo.digest}:${side}:${light}`;
  const cached = caches.tiles.get(key);
  if (cached) return cached;
  const image = await resizedLogo(logo, side);
  return cachedTile(caches, key, () => {
    const tile = new Uint32Array(side * side).fill(light);
    composite(tile, side, image.rgba, side, 0, 0);
    return tile;
  });
}

async function resizedLogo(logo: NonNullable<Branding['logo']>, side: number): Promise<RawImage> {
  const { data, info } = await loadSharp()(logoPng(logo))
    .resize(side, side, { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, rgba: new Uint8Array(data) };
}

/** The caption band rasterised from the very SVG fragment the SVG output carries, so all formats look the same. */
async function captionBand(
  caches: DesignCaches,
  frame: NonNullable<Branding['frame']>,
  width: number,
  height: number,
  textColor: string,
): Promise<RawImage> {
  const key = JSON.stringify([frame.text, frame.color, textColor, width, height]);
  const cached = caches.captions.get(key);
  if (cached) return cached;
  const caption = captionSvg(frame.text, width, 0, height, frame.color, textColor);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${caption}</svg>`;
  const { data } = await loadSharp()(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  // a copy: starts on a word boundary, so it can be viewed as pixels
  const image = { width, height, rgba: new Uint8Array(data) };
  caches.captions.set(key, image);
  return image;
}

/** The design's art at this layout, built once (tiles, logo, caption band, their palette) and cached per thread. */
export async function designArt(
  spec: RenderSpec,
  branding: Branding,
  design: string,
  layout: DesignLayout,
  caches: DesignCaches,
): Promise<DesignArt> {
  const { side: width, scale } = layout;
  const key = JSON.stringify([
    design,
    spec.darkColor,
    spec.lightColor,
    width,
    scale,
    layout.logoBox.side,
    layout.bandHeight,
  ]);
  const cached = caches.arts.get(key);
  if (cached) return cached;
  const light = packCanonical(spec.lightColor);
  const dark = packCanonical(spec.darkColor);
  const finder = packCanonical(branding.finderColor);
  const rgba: ArtTiles<Uint32Array> = {
    module: cachedTile(caches, `m:${branding.moduleShape}:${scale}:${dark}:${light}`, () =>
      shapeTile(moduleInside(branding.moduleShape), 1, scale, dark, light),
    ),
    finder: cachedTile(caches, `f:${branding.finderShape}:${scale}:${finder}:${light}`, () =>
      shapeTile(finderInside(branding.finderShape), 7, 7 * scale, finder, light),
    ),
    dark: Uint32Array.of(dark),
  };
  if (branding.logo) rgba.logo = await logoTile(caches, branding.logo, layout.logoBox.side, light);
  if (branding.frame) {
    const band = await captionBand(caches, branding.frame, width, layout.bandHeight, spec.lightColor);
    rgba.band = new Uint32Array(band.rgba.buffer, band.rgba.byteOffset, band.rgba.byteLength / 4);
  }
  const palette = paletteOf(light, [rgba.module, rgba.finder, rgba.dark, rgba.logo, rgba.band]);
  const [module, finderTile, darkTile, logo, band] = palette?.indexed ?? [];
  const indexed = palette && {
    palette: palette.palette,
    tiles: { module: module!, finder: finderTile!, dark: darkTile!, logo, band },
  };
  const sameAsAbove = {
    finder: rowsSameAsAbove(rgba.finder, 7 * scale),
    logo: rgba.logo && rowsSameAsAbove(rgba.logo, layout.logoBox.side),
    band: rgba.band && rowsSameAsAbove(rgba.band, width),
  };
  const squareAlignment = branding.moduleShape !== 'square';
  const art = {
    key,
    light,
    squareAlignment,
    moduleRowSource: rowSources(rgba.module, scale),
    sameAsAbove,
    rgba,
    indexed,
  };
  caches.arts.set(key, art);
  return art;
}

/**
 * Each row of a square tile mapped to the first row identical to it (shapes symmetric top to bottom repeat half their
 * rows or more).
 */
function rowSources(tile: Uint32Array, side: number): Uint16Array {
  const sources = new Uint16Array(side);
  for (let y = 0; y < side; y++) {
    const row = tile.subarray(y * side, (y + 1) * side);
    let same = 0;
    while (same < y && !tile.subarray(same * side, (same + 1) * side).every((value, x) => value === row[x])) same++;
    sources[y] = same;
  }
  return sources;
}

/** For each row of a tile `width` pixels wide, 1 when it equals the row above it. */
function rowsSameAsAbove(tile: Uint32Array, width: number): Uint8Array {
  const same = new Uint8Array(tile.length / width);
  for (let y = 1; y < same.length; y++) {
    let x = 0;
    while (x < width && tile[y * width + x] === tile[(y - 1) * width + x]) x++;
    same[y] = x === width ? 1 : 0;
  }
  return same;
}

/**
 * Which image rows repeat the row above, from how each row is drawn: the blank quiet zone; inside one
 * module band, a module-tile row equal to the one above it, where every finder and logo row the band
 * crosses repeats too; in the caption band, its own repeated rows. Rows this cannot vouch for (band
 * edges, the logo's top and bottom) count as new: never a wrong repeat, at worst a repeat missed.
 */
function repeatedRows(art: DesignArt, matrix: QrMatrix, layout: DesignLayout, size: number): Uint8Array {
  const { height, scale, offset, logoBox } = layout;
  const n = matrix.size;
  const codeEnd = offset + n * scale;
  const { finder, logo, band } = art.sameAsAbove;
  const sources = art.moduleRowSource;
  const logoEnd = logoBox.top + logoBox.side;
  const repeats = new Uint8Array(height);
  for (let y = 1; y < size; y++) {
    if (y < offset || y > codeEnd) repeats[y] = 1; // the blank quiet zone above and below the code
    if (y <= offset || y >= codeEnd) continue; // a band edge of the code: a new row
    const my = Math.floor((y - offset) / scale);
    const t = y - offset - my * scale;
    if (t === 0 || sources[t] !== sources[t - 1]) continue;
    if ((my < 7 || my >= n - 7) && finder[(my < 7 ? my : my - (n - 7)) * scale + t] !== 1) continue;
    if (logo && y >= logoBox.top && y <= logoEnd && (y === logoBox.top || y === logoEnd || logo[y - logoBox.top] !== 1))
      continue;
    repeats[y] = 1;
  }
  if (band) for (let y = size + 1; y < height; y++) repeats[y] = band[y - size]!;
  return repeats;
}

/**
 * The modules band by band (one module row, `scale` pixel rows): each distinct tile row is stamped under
 * every dark module of the band, a repeated one copied whole from the band's earlier row. Finders and the
 * logo come after, so a copied row never carries them.
 */
function drawModules<T extends Uint32Array | Uint8Array>(
  canvas: Canvas<T>,
  tile: T,
  rowSource: Uint16Array,
  matrix: QrMatrix,
  layout: DesignLayout,
): void {
  const { data, stride, first } = canvas;
  const { scale, offset } = layout;
  const n = matrix.size;
  const columns: number[] = [];
  for (let my = 0; my < n; my++) {
    columns.length = 0;
    for (let mx = 0; mx < n; mx++)
      if (matrix.modules[my * n + mx] !== 0 && !isReservedModule(layout, n, mx, my))
        columns.push(first + offset + mx * scale);
    const top = offset + my * scale;
    for (let y = 0; y < scale; y++) {
      const row = (top + y) * stride;
      const same = rowSource[y]!;
      if (same !== y) {
        data.copyWithin(row, (top + same) * stride, (top + same + 1) * stride);
        continue;
      }
      for (const left of columns)
        for (let x = 0, from = y * scale; x < scale; x++) data[row + left + x] = tile[from + x]!;
    }
  }
}

/**
 * Alignment patterns redrawn as whole squares (see isAlignmentModule) in the dark and the light colour: a shaped
 * tile's corner and centre are blends at small module sizes. Each square is the same in every pixel row of its band,
 * so the rows repeatedRows marks still repeat.
 */
function squareAlignmentPatterns<T extends Uint32Array | Uint8Array>(
  canvas: Canvas<T>,
  colours: { dark: number; light: number },
  matrix: QrMatrix,
  layout: DesignLayout,
): void {
  const { scale, offset } = layout;
  const { dark, light } = colours;
  const n = matrix.size;
  for (const [cx, cy] of alignmentCentres(n)) {
    for (let my = cy - 2; my <= cy + 2; my++) {
      for (let mx = cx - 2; mx <= cx + 2; mx++) {
        if (isReservedModule(layout, n, mx, my)) continue;
        const value = matrix.modules[my * n + mx] !== 0 ? dark : light;
        const left = canvas.first + offset + mx * scale;
        for (let y = 0; y < scale; y++)
          canvas.data.fill(
            value,
            left + (offset + my * scale + y) * canvas.stride,
            left + (offset + my * scale + y) * canvas.stride + scale,
          );
      }
    }
  }
}

/**
 * Copies a square tile's rows into the canvas at (left, top), a row at a time (native copies: the finder and logo tiles
 * are wide).
 */
function blit<T extends Uint32Array | Uint8Array>(
  canvas: Canvas<T>,
  tile: T,
  side: number,
  left: number,
  top: number,
): void {
  for (let y = 0; y < side; y++)
    canvas.data.set(tile.subarray(y * side, (y + 1) * side), canvas.first + (top + y) * canvas.stride + left);
}

/** Lays the art on a blank canvas (filled with the light colour, or index 0): modules, finders, logo, band. */
function drawArt<T extends Uint32Array | Uint8Array>(
  canvas: Canvas<T>,
  tiles: ArtTiles<T>,
  art: DesignArt,
  matrix: QrMatrix,
  layout: DesignLayout,
  size: number,
): void {
  const { side: width, scale, offset } = layout;
  drawModules(canvas, tiles.module, art.moduleRowSource, matrix, layout);
  if (art.squareAlignment)
    squareAlignmentPatterns(
      canvas,
      { dark: tiles.dark[0]!, light: tiles === art.rgba ? art.light : 0 },
      matrix,
      layout,
    );
  for (const [fx, fy] of finderOrigins(matrix.size))
    blit(canvas, tiles.finder, 7 * scale, offset + fx * scale, offset + fy * scale);
  if (tiles.logo) blit(canvas, tiles.logo, layout.logoBox.side, layout.logoBox.left, layout.logoBox.top);
  const band = tiles.band;
  if (band)
    for (let y = 0; y < layout.bandHeight; y++)
      canvas.data.set(band.subarray(y * width, (y + 1) * width), canvas.first + (size + y) * canvas.stride);
}

/** `design` is designKey(branding), when the caller has it already (it is one JSON.stringify per call). */
export async function rasterDesign(
  spec: RenderSpec,
  branding: Branding,
  matrix: QrMatrix,
  layout: DesignLayout,
  caches: DesignCaches,
  design = designKey(branding),
): Promise<Raster> {
  const { side: width, height } = layout;
  const art = await designArt(spec, branding, design, layout, caches);
  if (art.indexed) {
    const scanlines = caches.scanlines((width + 1) * height);
    drawArt({ data: scanlines, stride: width + 1, first: 1 }, art.indexed.tiles, art, matrix, layout, spec.size);
    return {
      width,
      height,
      repeats: repeatedRows(art, matrix, layout, spec.size),
      scanlines,
      palette: art.indexed.palette,
    };
  }
  const pixels = new Uint32Array(width * height).fill(art.light);
  drawArt({ data: pixels, stride: width, first: 0 }, art.rgba, art, matrix, layout, spec.size);
  return { width, height, repeats: repeatedRows(art, matrix, layout, spec.size), pixels };
}

/** The raster as packed RGBA pixels, whichever form it was drawn in. */
export function rasterPixels(raster: Raster): Uint32Array {
  return 'scanlines' in raster
    ? expandScanlines(raster.scanlines, raster.palette, raster.width, raster.height)
    : raster.pixels;
}
