// Draws a branded design as RGBA pixels: shaped modules and finders from cached tiles, the logo, the caption band.
import sharp from 'sharp';
import type { Branding } from '../../domain/branding.js';
import type { RenderSpec } from '../../domain/render-options.js';
import { captionSvg } from '../frame/caption.js';
import type { QrMatrix } from '../qr-matrix.js';
import type { DesignCaches, RawImage } from './design-caches.js';
import { finderOrigins, isReservedModule, type DesignLayout } from './design-layout.js';
import { blit, composite, packCanonical, shapeTile } from './pixels.js';
import { finderInside, moduleInside } from './shapes.js';

export interface Raster {
  pixels: Uint32Array;
  width: number;
  height: number;
}

function cachedTile(caches: DesignCaches, key: string, make: () => Uint32Array): Uint32Array {
  let tile = caches.tiles.get(key);
  if (!tile) caches.tiles.set(key, (tile = make()));
  return tile;
}

/**
 * The stored logo resized to fit its box (aspect kept) and laid over the background colour, once per
 * logo, pixel size and background: a render then copies its rows like a tile.
 */
async function logoTile(caches: DesignCaches, logo: NonNullable<Branding['logo']>, side: number, light: number): Promise<Uint32Array> {
  const key = `l:${logo.digest}:${side}:${light}`;
  return caches.tiles.get(key) ?? cacheTile(caches, key, await composedLogo(caches, logo, side, light));
}

function cacheTile(caches: DesignCaches, key: string, tile: Uint32Array): Uint32Array {
  caches.tiles.set(key, tile);
  return tile;
}

async function composedLogo(caches: DesignCaches, logo: NonNullable<Branding['logo']>, side: number, light: number): Promise<Uint32Array> {
  const image = await resizedLogo(logo, side);
  const tile = new Uint32Array(side * side).fill(light);
  composite(tile, side, image.rgba, side, 0, 0);
  return tile;
}

async function resizedLogo(logo: NonNullable<Branding['logo']>, side: number): Promise<RawImage> {
  const { data, info } = await sharp(logo.png)
    .resize(side, side, { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, rgba: new Uint8Array(data) };
}

/** The caption band rasterised from the very SVG fragment the SVG output carries, so all formats look the same. */
async function captionBand(caches: DesignCaches, frame: NonNullable<Branding['frame']>, width: number, height: number, textColor: string): Promise<RawImage> {
  const key = JSON.stringify([frame.text, frame.color, textColor, width, height]);
  const cached = caches.captions.get(key);
  if (cached) return cached;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${captionSvg(frame.text, width, 0, height, frame.color, textColor)}</svg>`;
  const { data } = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const image = { width, height, rgba: new Uint8Array(data) }; // a copy: starts on a word boundary, so it can be viewed as pixels
  caches.captions.set(key, image);
  return image;
}

export async function rasterDesign(spec: RenderSpec, branding: Branding, matrix: QrMatrix, layout: DesignLayout, caches: DesignCaches): Promise<Raster> {
  const { side: width, height, scale, offset } = layout;
  const light = packCanonical(spec.lightColor);
  const dark = packCanonical(spec.darkColor);
  const finder = packCanonical(branding.finderColor);
  const pixels = new Uint32Array(width * height).fill(light);

  const moduleTile = cachedTile(caches, `m:${branding.moduleShape}:${scale}:${dark}:${light}`, () =>
    shapeTile(moduleInside(branding.moduleShape), 1, scale, dark, light),
  );
  const n = matrix.size;
  for (let my = 0; my < n; my++) {
    for (let mx = 0; mx < n; mx++) {
      if (matrix.modules[my * n + mx] === 0 || isReservedModule(layout, n, mx, my)) continue;
      blit(pixels, width, moduleTile, scale, offset + mx * scale, offset + my * scale);
    }
  }
  const finderTile = cachedTile(caches, `f:${branding.finderShape}:${scale}:${finder}:${light}`, () =>
    shapeTile(finderInside(branding.finderShape), 7, 7 * scale, finder, light),
  );
  for (const [fx, fy] of finderOrigins(n)) blit(pixels, width, finderTile, 7 * scale, offset + fx * scale, offset + fy * scale);

  if (branding.logo) {
    const tile = await logoTile(caches, branding.logo, layout.logoBox.side, light);
    blit(pixels, width, tile, layout.logoBox.side, layout.logoBox.left, layout.logoBox.top);
  }
  if (branding.frame) {
    const band = await captionBand(caches, branding.frame, width, layout.bandHeight, spec.lightColor);
    pixels.set(new Uint32Array(band.rgba.buffer, band.rgba.byteOffset, band.rgba.byteLength / 4), width * spec.size);
  }
  return { pixels, width, height };
}
