// RGBA pixels packed one per 32-bit word (little-endian: r, g, b, a in memory order), coverage tiles of shapes, and
// tiles as palette indices.
import { parseColour, type Rgba } from '../../domain/render-options.js';
import type { Inside } from './shapes.js';

export function packColour({ r, g, b, a }: Rgba): number {
  return (r | (g << 8) | (b << 16) | (a << 24)) >>> 0;
}

export function packCanonical(canonical: string): number {
  return packColour(parseColour(canonical));
}

/** `over` laid on `under` with coverage 0..1, channel by channel (the anti-aliased edge of a shape). */
export function mix(under: number, over: number, coverage: number): number {
  if (coverage <= 0) return under;
  if (coverage >= 1) return over;
  let out = 0;
  for (let shift = 0; shift < 32; shift += 8) {
    const u = (under >>> shift) & 0xff;
    const o = (over >>> shift) & 0xff;
    out |= Math.round(u + (o - u) * coverage) << shift;
  }
  return out >>> 0;
}

/** 4 × 4 samples per pixel: edges as smooth as a vector renderer's at the sizes a QR code is printed. */
const SAMPLES = 4;

/**
 * A square tile of `pixels` per side showing a shape `units` wide (1 for a module, 7 for a finder), in
 * `colour` over `background`, each pixel's colour weighted by the share of its samples inside the shape.
 */
export function shapeTile(
  inside: Inside,
  units: number,
  pixels: number,
  colour: number,
  background: number,
): Uint32Array {
  const tile = new Uint32Array(pixels * pixels);
  const step = units / pixels / SAMPLES;
  for (let py = 0; py < pixels; py++) {
    for (let px = 0; px < pixels; px++) {
      let hits = 0;
      for (let sy = 0; sy < SAMPLES; sy++) {
        const y = (py * SAMPLES + sy + 0.5) * step;
        for (let sx = 0; sx < SAMPLES; sx++) if (inside((px * SAMPLES + sx + 0.5) * step, y)) hits++;
      }
      tile[py * pixels + px] = mix(background, colour, hits / (SAMPLES * SAMPLES));
    }
  }
  return tile;
}

/** Lays non-premultiplied RGBA pixels (a resized logo) over the image at (left, top), by their alpha. */
export function composite(
  image: Uint32Array,
  width: number,
  rgba: Uint8Array,
  side: number,
  left: number,
  top: number,
): void {
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const i = (y * side + x) * 4;
      const alpha = rgba[i + 3]! / 255;
      if (alpha === 0) continue;
      const over = (rgba[i]! | (rgba[i + 1]! << 8) | (rgba[i + 2]! << 16) | (255 << 24)) >>> 0;
      const at = (top + y) * width + left + x;
      image[at] = mix(image[at]!, over, alpha);
    }
  }
}

/**
 * The tiles' colours as one palette (`first` at index 0, so a zero-filled image is that colour) and each
 * tile as indices into it (an absent tile stays absent); undefined when they hold more than 256 colours between them.
 */
export function paletteOf(
  first: number,
  tiles: Array<Uint32Array | undefined>,
): { palette: Uint32Array; indexed: Array<Uint8Array | undefined> } | undefined {
  const slots = new Map<number, number>([[first, 0]]);
  const indexed: Array<Uint8Array | undefined> = [];
  for (const tile of tiles) {
    if (!tile) {
      indexed.push(undefined);
      continue;
    }
    const indices = new Uint8Array(tile.length);
    for (let i = 0; i < tile.length; i++) {
      let slot = slots.get(tile[i]!);
      if (slot === undefined) {
        if (slots.size === 256) return undefined;
        slots.set(tile[i]!, (slot = slots.size));
      }
      indices[i] = slot;
    }
    indexed.push(indices);
  }
  return { palette: Uint32Array.from(slots.keys()), indexed };
}

/**
 * Palette-index scanlines (a filter byte, then `width` indices, per row) back to packed RGBA: for the scan check and
 * the WebP encoder, which take pixels.
 */
export function expandScanlines(
  scanlines: Uint8Array,
  palette: Uint32Array,
  width: number,
  height: number,
): Uint32Array {
  const pixels = new Uint32Array(width * height);
  for (let y = 0, at = 0; y < height; y++) {
    const from = y * (width + 1) + 1;
    for (let x = 0; x < width; x++) pixels[at++] = palette[scanlines[from + x]!]!;
  }
  return pixels;
}
