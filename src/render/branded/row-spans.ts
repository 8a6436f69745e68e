// One image row of a design as spans (a colour, a run of modules, a finder's or the logo's row), made once a module
// row: what the deflate writer walks.
import type { QrMatrix } from '../qr-matrix.js';
import { alignmentCentres, isReservedModule, type DesignLayout } from './design-layout.js';

const DRAWN = 0;
const RESERVED = 1;
const ALIGNMENT = 2;

/**
 * What each module of a symbol size is (see drawModules and squareAlignmentPatterns in design-raster.ts), kept in
 * `known` per size.
 */
export function cellKinds(
  known: Map<number, Uint8Array>,
  layout: DesignLayout,
  size: number,
  squareAlignment: boolean,
): Uint8Array {
  let cells = known.get(size);
  if (cells) return cells;
  cells = new Uint8Array(size * size);
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++) if (isReservedModule(layout, size, x, y)) cells[y * size + x] = RESERVED;
  if (squareAlignment)
    for (const [cx, cy] of alignmentCentres(size))
      for (let y = cy - 2; y <= cy + 2; y++)
        for (let x = cx - 2; x <= cx + 2; x++) if (cells[y * size + x] === DRAWN) cells[y * size + x] = ALIGNMENT;
  known.set(size, cells);
  return cells;
}

// Span kinds of an image row, left to right, as quads (kind, first pixel, length in pixels, value).
/** One colour; value: the palette index, or the packed colour. */
export const SOLID = 0;
/** A run of dark modules, the band's module tile row under each; value: how many. */
export const MODULES = 1;
/** A finder's row (the band's); value unused. */
export const FINDER = 2;
/** The logo's row (the image row's); value unused. */
export const LOGO = 3;
/** Part of a module's or finder's row, cut by the logo's box; value: its first byte within the tile row. */
export const MODULE_PART = 4;
export const FINDER_PART = 5;

/** A row's spans as quads, one colour's neighbours merged. */
export class SpanList {
  data = new Float64Array(64); // a packed RGBA colour needs 32 unsigned bits
  count = 0;
  /**
   * The render these spans were made for: a list is kept per module row (DesignRowCodes.spans) and made again per
   * render.
   */
  madeFor = -1;

  /** `kept`: where the list's bytes are counted (DesignRowCodes.kept), as it is made and grows. */
  constructor(readonly kept?: { bytes: number }) {
    if (kept) kept.bytes += this.data.byteLength;
  }

  push(kind: number, x: number, length: number, value: number): void {
    if (length <= 0) return;
    const last = (this.count - 1) * 4;
    if (kind === SOLID && this.count > 0 && this.data[last] === SOLID && this.data[last + 3] === value) {
      this.data[last + 2]! += length;
      return;
    }
    if ((this.count + 1) * 4 > this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      if (this.kept) this.kept.bytes += bigger.byteLength - this.data.byteLength;
      this.data = bigger;
    }
    const at = this.count++ * 4;
    this.data[at] = kind;
    this.data[at + 1] = x;
    this.data[at + 2] = length;
    this.data[at + 3] = value;
  }

  /** These spans with [left, left + length) given to the logo (drawn last, over everything). */
  withLogo(cut: SpanList, left: number, length: number, scale: number): SpanList {
    cut.count = 0;
    // Pixels here; the writer scales them to bytes.
    const end = left + length;
    let logoPlaced = false;
    for (let i = 0; i < this.count; i++) {
      const kind = this.data[i * 4]!;
      const x = this.data[i * 4 + 1]!;
      const spanLength = this.data[i * 4 + 2]!;
      const value = this.data[i * 4 + 3]!;
      const spanEnd = x + spanLength;
      if (x < left) cut.#piece(kind, value, x, x, Math.min(spanEnd, left), scale);
      if (!logoPlaced && x < end && spanEnd > left) {
        cut.push(LOGO, left, length, 0);
        logoPlaced = true;
      }
      if (spanEnd > end) cut.#piece(kind, value, x, Math.max(x, end), spanEnd, scale);
    }
    return cut;
  }

  /** Pixels [from, to) of a span starting at x: whole modules stay a run, a cut module or finder becomes a part. */
  #piece(kind: number, value: number, x: number, from: number, to: number, scale: number): void {
    if (kind === SOLID) return this.push(SOLID, from, to - from, value);
    if (kind === FINDER)
      return from === x && to - from === 7 * scale
        ? this.push(FINDER, x, to - from, 0)
        : this.push(FINDER_PART, from, to - from, from - x);
    for (let cell = x + Math.floor((from - x) / scale) * scale; cell < to; cell += scale) {
      const start = Math.max(cell, from);
      const stop = Math.min(cell + scale, to);
      if (start === cell && stop === cell + scale) this.push(MODULES, cell, scale, 1);
      else this.push(MODULE_PART, start, stop - start, start - cell);
    }
  }
}

/** The spans of module row my: margins, runs of dark modules, light ones, alignment squares, finders. */
export function bandSpans(
  spans: SpanList,
  matrix: QrMatrix,
  layout: DesignLayout,
  cells: Uint8Array,
  colours: { dark: number; light: number; background: number },
  my: number,
): SpanList {
  const { scale, offset, side } = layout;
  const n = matrix.size;
  spans.count = 0;
  spans.push(SOLID, 0, offset, colours.background);
  const finders = my < 7 || my >= n - 7;
  for (let mx = 0; mx < n;) {
    const x = offset + mx * scale;
    if (finders && (mx === 0 || (my < 7 && mx === n - 7))) {
      spans.push(FINDER, x, 7 * scale, 0);
      mx += 7;
      continue;
    }
    const cell = cells[my * n + mx]!;
    const dark = matrix.modules[my * n + mx] !== 0;
    if (cell === DRAWN && dark) {
      let run = 1;
      while (
        mx + run < n &&
        cells[my * n + mx + run] === DRAWN &&
        matrix.modules[my * n + mx + run] !== 0 &&
        !(finders && my < 7 && mx + run === n - 7)
      )
        run++;
      spans.push(MODULES, x, run * scale, run);
      mx += run;
      continue;
    }
    spans.push(
      SOLID,
      x,
      scale,
      cell === ALIGNMENT && dark ? colours.dark : cell === ALIGNMENT ? colours.light : colours.background,
    );
    mx++;
  }
  spans.push(SOLID, offset + n * scale, side - offset - n * scale, colours.background);
  return spans;
}
