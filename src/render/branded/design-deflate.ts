// A palette design's PNG scanlines deflated from how they are drawn (tile rows at known places), never from pixels: the PNG path of a render whose scan verdict is known.
import { DEFLATE_WINDOW, DeflateTokens, MIN_COPY, type DeflateCode } from '../deflate/deflate-tokens.js';
import type { QrMatrix } from '../qr-matrix.js';
import { alignmentCentres, isReservedModule, type DesignLayout } from './design-layout.js';
import type { DesignArt } from './design-raster.js';

/**
 * Why by hand: zlib level 1 was ~70% of a 512 px branded PNG render (~450 of ~650 µs; bench/branded-render.ts), almost
 * all of it matching bytes whose repeats the drawing already knows: a row equal to one drawn a few rows up, a module's
 * tile row equal to the one drawn beside it, a run of one colour. Tokens here come from those places, a handful per
 * row, and the bytes themselves are read only once per design (each tile row's tokens and sums are kept in the art).
 */

/** A tile (module, finder, logo or caption band) row by row as the encoder keeps it: each row's first identical row, sums, tokens. */
class TileRows {
  /** Each row's first identical row in the tile: rows with one source are the same bytes. */
  readonly source: Int32Array;
  /** Per row: the sum of its bytes, and of each byte times its distance from the row's end (see DeflateTokens.addSums). */
  readonly sum: Float64Array;
  readonly weighted: Float64Array;
  readonly last: Uint8Array;
  readonly #tokens: Array<Uint32Array | undefined>;
  readonly #tokensUnderAbove: Array<Uint32Array | undefined>;

  constructor(
    readonly bytes: Uint8Array,
    readonly width: number,
    /** Distance from a byte to the one above it in the image (a scanline and its filter byte). */
    readonly stride: number,
  ) {
    const rows = bytes.length / width;
    this.source = firstIdenticalRows(bytes, width);
    this.sum = new Float64Array(rows);
    this.weighted = new Float64Array(rows);
    this.last = new Uint8Array(rows);
    for (let r = 0; r < rows; r++) {
      for (let i = 0, at = r * width; i < width; i++, at++) {
        this.sum[r]! += bytes[at]!;
        this.weighted[r]! += (width - i) * bytes[at]!;
      }
      this.last[r] = bytes[(r + 1) * width - 1]!;
    }
    this.#tokens = new Array(rows);
    this.#tokensUnderAbove = new Array(rows);
  }

  row(r: number): Uint8Array {
    return this.bytes.subarray(r * this.width, (r + 1) * this.width);
  }

  /** Row r's tokens; `underAbove`: the image row above holds row r - 1 of this tile at the same place, so they may copy from it. */
  tokens(r: number, underAbove: boolean): Uint32Array {
    if (underAbove && r > 0) return (this.#tokensUnderAbove[r] ??= tokensOf(this.row(r), this.row(r - 1), this.stride));
    return (this.#tokens[r] ??= tokensOf(this.row(r), undefined, this.stride));
  }
}

/** Each row's first identical row, found by its bytes as a key (once per design). */
function firstIdenticalRows(bytes: Uint8Array, width: number): Int32Array {
  const rows = bytes.length / width;
  const source = new Int32Array(rows);
  const seen = new Map<string, number>();
  for (let r = 0; r < rows; r++) {
    const key = Buffer.from(bytes.buffer, bytes.byteOffset + r * width, width).toString('latin1');
    const first = seen.get(key);
    if (first === undefined) seen.set(key, r);
    source[r] = first ?? r;
  }
  return source;
}

/**
 * Greedy tokens for one tile row (as DeflateTokens keeps them) that refer only inside it or, given `above`, to the
 * row above at `stride`: spans equal to the row above, runs of one byte, literals. Position-free, so one list serves
 * wherever the row is drawn.
 */
function tokensOf(bytes: Uint8Array, above: Uint8Array | undefined, stride: number): Uint32Array {
  const tokens: number[] = [];
  for (let i = 0; i < bytes.length;) {
    let same = 0;
    if (above) while (i + same < bytes.length && bytes[i + same] === above[i + same]) same++;
    if (same >= MIN_COPY) {
      tokens.push(((same << 16) | stride) >>> 0);
      i += same;
      continue;
    }
    let run = 0;
    if (i > 0) while (i + run < bytes.length && bytes[i + run] === bytes[i - 1]) run++;
    if (run >= MIN_COPY) {
      tokens.push(((run << 16) | 1) >>> 0);
      i += run;
      continue;
    }
    tokens.push(bytes[i++]!);
  }
  return Uint32Array.from(tokens);
}

/** What the encoder keeps of a design's art (in the art itself: per thread, per design and layout). */
export interface DesignRowCodes {
  module: TileRows;
  finder: TileRows;
  logo?: TileRows | undefined;
  band?: TileRows | undefined;
  /** Per symbol size, what each module is: drawn one by one, reserved (finder, cleared square), or an alignment square's. */
  cells: Map<number, Uint8Array>;
  /** The Huffman code of the design's first image: the next ones are written under it, with no counting. */
  code?: DeflateCode | undefined;
}

function rowCodes(art: DesignArt, layout: DesignLayout): DesignRowCodes {
  const tiles = art.indexed!.tiles;
  const stride = layout.side + 1;
  return (art.rowCodes ??= {
    module: new TileRows(tiles.module, layout.scale, stride),
    finder: new TileRows(tiles.finder, 7 * layout.scale, stride),
    logo: tiles.logo && new TileRows(tiles.logo, layout.logoBox.side, stride),
    band: tiles.band && new TileRows(tiles.band, layout.side, stride),
    cells: new Map(),
  });
}

/** Whether deflateDesign can write this design: palette art, modules at least a copy wide. */
export function canDeflateDesign(art: DesignArt, layout: DesignLayout): boolean {
  return art.indexed !== undefined && layout.scale >= MIN_COPY;
}

const DRAWN = 0;
const RESERVED = 1;
const ALIGNMENT = 2;

/** What each module of a symbol size is (see drawModules and squareAlignmentPatterns in design-raster.ts). */
function cellKinds(codes: DesignRowCodes, layout: DesignLayout, size: number, squareAlignment: boolean): Uint8Array {
  let cells = codes.cells.get(size);
  if (cells) return cells;
  cells = new Uint8Array(size * size);
  for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) if (isReservedModule(layout, size, x, y)) cells[y * size + x] = RESERVED;
  if (squareAlignment)
    for (const [cx, cy] of alignmentCentres(size))
      for (let y = cy - 2; y <= cy + 2; y++) for (let x = cx - 2; x <= cx + 2; x++) if (cells[y * size + x] === DRAWN) cells[y * size + x] = ALIGNMENT;
  codes.cells.set(size, cells);
  return cells;
}

// Span kinds of an image row, left to right, as quads (kind, first pixel, length, value) in an Int32Array.
/** One colour; value: the palette index. */
const SOLID = 0;
/** A run of dark modules, the band's module tile row under each; value: how many. */
const MODULES = 1;
/** A finder's row (the band's); value unused. */
const FINDER = 2;
/** The logo's row (the image row's); value unused. */
const LOGO = 3;
/** Part of a module's or finder's row, cut by the logo's box; value: its first byte within the tile row. */
const MODULE_PART = 4;
const FINDER_PART = 5;

/** A row's spans as quads, one colour's neighbours merged. */
class SpanList {
  data = new Int32Array(64);
  count = 0;

  push(kind: number, x: number, length: number, value: number): void {
    if (length <= 0) return;
    const last = (this.count - 1) * 4;
    if (kind === SOLID && this.count > 0 && this.data[last] === SOLID && this.data[last + 3] === value) {
      this.data[last + 2]! += length;
      return;
    }
    if ((this.count + 1) * 4 > this.data.length) {
      const bigger = new Int32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    const at = this.count++ * 4;
    this.data[at] = kind;
    this.data[at + 1] = x;
    this.data[at + 2] = length;
    this.data[at + 3] = value;
  }

  /** These spans with [left, left + length) given to the logo (drawn last, over everything). */
  withLogo(left: number, length: number, scale: number): SpanList {
    const cut = new SpanList();
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
    if (kind === FINDER) return from === x && to - from === 7 * scale ? this.push(FINDER, x, to - from, 0) : this.push(FINDER_PART, from, to - from, from - x);
    for (let cell = x + Math.floor((from - x) / scale) * scale; cell < to; cell += scale) {
      const start = Math.max(cell, from);
      const stop = Math.min(cell + scale, to);
      if (start === cell && stop === cell + scale) this.push(MODULES, cell, scale, 1);
      else this.push(MODULE_PART, start, stop - start, start - cell);
    }
  }
}

/** The spans of module row my: margins, runs of dark modules, light ones, alignment squares, finders. */
function bandSpans(matrix: QrMatrix, layout: DesignLayout, cells: Uint8Array, alignment: { dark: number; light: number }, my: number): SpanList {
  const { scale, offset, side } = layout;
  const n = matrix.size;
  const spans = new SpanList();
  spans.push(SOLID, 0, offset, 0);
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
      while (mx + run < n && cells[my * n + mx + run] === DRAWN && matrix.modules[my * n + mx + run] !== 0 && !(finders && my < 7 && mx + run === n - 7)) run++;
      spans.push(MODULES, x, run * scale, run);
      mx += run;
      continue;
    }
    spans.push(SOLID, x, scale, cell === ALIGNMENT && dark ? alignment.dark : cell === ALIGNMENT ? alignment.light : 0);
    mx++;
  }
  spans.push(SOLID, offset + n * scale, side - offset - n * scale, 0);
  return spans;
}

/** Where each tile's rows were last written whole (by source row): a later one is a copy of it, when in the window. */
class LastWritten {
  readonly module: Float64Array;
  readonly finder: Float64Array;
  readonly logo: Float64Array;

  constructor(codes: DesignRowCodes) {
    this.module = new Float64Array(codes.module.source.length).fill(-Infinity);
    this.finder = new Float64Array(codes.finder.source.length).fill(-Infinity);
    this.logo = new Float64Array(codes.logo?.source.length ?? 0).fill(-Infinity);
  }
}

/** The sums of one row being written (see DeflateTokens.addSums): appended run by run. */
class RowSums {
  sum = 0;
  weighted = 0;

  append(sum: number, weighted: number, length: number): void {
    this.weighted += length * this.sum + weighted;
    this.sum += sum;
  }
}

/** A tile row's own tokens (see tokensOf) into the stream. */
function replayTokens(out: DeflateTokens, tokens: Uint32Array): void {
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token < 256) out.literal(token);
    else out.copy(token >>> 16, token & 0xffff);
  }
}

/** A whole tile row: a copy of where the same bytes were last written, if that is in the window, else its own tokens. */
function writeTileRow(out: DeflateTokens, tiles: TileRows, lastAt: Float64Array, row: number, underAbove: boolean, sums: RowSums): number {
  const source = tiles.source[row]!;
  const at = out.position;
  if (tiles.width >= MIN_COPY && at - lastAt[source]! <= DEFLATE_WINDOW) out.copy(tiles.width, at - lastAt[source]!);
  else replayTokens(out, tiles.tokens(row, underAbove));
  lastAt[source] = at;
  sums.append(tiles.sum[source]!, tiles.weighted[source]!, tiles.width);
  return tiles.last[source]!;
}

/** One colour, `length` times, after `previous`: a run copied from the byte before it. */
function writeSolid(out: DeflateTokens, value: number, length: number, previous: number, sums: RowSums): void {
  if (length < MIN_COPY) for (let k = 0; k < length; k++) out.literal(value);
  else if (previous === value) out.copy(length, 1);
  else if (length - 1 >= MIN_COPY) {
    out.literal(value);
    out.copy(length - 1, 1);
  } else for (let k = 0; k < length; k++) out.literal(value);
  sums.append(value * length, (value * length * (length + 1)) / 2, length);
}

/** Part of a tile row (cut by the logo's box): its bytes as literals. */
function writePart(out: DeflateTokens, tiles: TileRows, row: number, from: number, length: number, sums: RowSums): number {
  const bytes = tiles.row(row);
  for (let i = from; i < from + length; i++) {
    out.literal(bytes[i]!);
    sums.append(bytes[i]!, bytes[i]!, 1);
  }
  return bytes[from + length - 1]!;
}

/** The row's pixel rows in tiles: module tile row t and the finder's row of band my, the logo's row (-1: none). */
interface TileRowsAt {
  module: number;
  finder: number;
  logo: number;
}

/**
 * One row's spans after its filter byte. `above`: the row above is the same module row and shows the logo exactly when
 * this one does, so their spans lie in the same places; those whose bytes match (every colour, and a tile's row where
 * it repeats the one above) are copied from the row above, neighbours together, as one copy.
 */
function writeSpans(
  out: DeflateTokens,
  spans: SpanList,
  codes: DesignRowCodes,
  lastAt: LastWritten,
  at: TileRowsAt,
  above: boolean,
  layout: DesignLayout,
  sums: RowSums,
): void {
  const { scale } = layout;
  const stride = layout.side + 1;
  const { module, finder, logo } = codes;
  const moduleSame = above && module.source[at.module] === module.source[at.module - 1];
  const finderSame = above && at.finder > 0 && finder.source[at.finder] === finder.source[at.finder - 1];
  const logoSame = above && at.logo > 0 && logo!.source[at.logo] === logo!.source[at.logo - 1];
  const data = spans.data;
  let previous = 0; // the filter byte
  let pending = 0; // bytes matching the row above, not yet written: 0 or a copy's worth
  for (let i = 0; i < spans.count; i++) {
    const kind = data[i * 4]!;
    const length = data[i * 4 + 2]!;
    const value = data[i * 4 + 3]!;
    const same =
      above &&
      (kind === SOLID ||
        ((kind === MODULES || kind === MODULE_PART) && moduleSame) ||
        ((kind === FINDER || kind === FINDER_PART) && finderSame) ||
        (kind === LOGO && logoSame));
    if (same && (pending > 0 || length >= MIN_COPY)) {
      pending += length;
      previous = appendSums(sums, codes, at, kind, length, value);
      continue;
    }
    if (pending > 0) out.copy(pending, stride);
    pending = 0;
    if (kind === SOLID) {
      writeSolid(out, value, length, previous, sums);
      previous = value;
    } else if (kind === MODULES) {
      previous = writeTileRow(out, module, lastAt.module, at.module, false, sums);
      if (value === 1) continue;
      // The rest of the run repeats the tile row every `scale` pixels: one copy.
      out.copy((value - 1) * scale, scale);
      const source = module.source[at.module]!;
      for (let k = 1; k < value; k++) sums.append(module.sum[source]!, module.weighted[source]!, scale);
      lastAt.module[source] = out.position - scale;
    } else if (kind === FINDER) previous = writeTileRow(out, finder, lastAt.finder, at.finder, false, sums);
    else if (kind === LOGO) previous = writeTileRow(out, logo!, lastAt.logo, at.logo, true, sums);
    else if (kind === MODULE_PART) previous = writePart(out, module, at.module, value, length, sums);
    else previous = writePart(out, finder, at.finder, value, length, sums);
  }
  if (pending > 0) out.copy(pending, stride);
}

/** A span's sums added without writing it (it is copied from the row above); returns its last byte. */
function appendSums(sums: RowSums, codes: DesignRowCodes, at: TileRowsAt, kind: number, length: number, value: number): number {
  if (kind === SOLID) {
    sums.append(value * length, (value * length * (length + 1)) / 2, length);
    return value;
  }
  const [tiles, row] =
    kind === MODULES || kind === MODULE_PART ? [codes.module, at.module] : kind === LOGO ? [codes.logo!, at.logo] : [codes.finder, at.finder];
  const source = tiles.source[row]!;
  if (kind === MODULE_PART || kind === FINDER_PART) {
    const bytes = tiles.row(source);
    for (let i = value; i < value + length; i++) sums.append(bytes[i]!, bytes[i]!, 1);
    return bytes[value + length - 1]!;
  }
  const repeats = kind === MODULES ? value : 1;
  for (let k = 0; k < repeats; k++) sums.append(tiles.sum[source]!, tiles.weighted[source]!, tiles.width);
  return tiles.last[source]!;
}

/**
 * The zlib stream of the design's PNG scanlines (each a filter byte 0, None, then palette indices), as rasterDesign
 * draws them: quiet zone, modules (a module tile row under each dark module), alignment squares, finders, the logo
 * over all of it, the caption band below. test/unit/design-deflate.test.ts holds the two equal, pixel for pixel.
 */
export function deflateDesign(art: DesignArt, matrix: QrMatrix, layout: DesignLayout, size: number): Uint8Array {
  const codes = rowCodes(art, layout);
  const { side: width, height, scale, offset, logoBox } = layout;
  const n = matrix.size;
  const stride = width + 1;
  const moduleTile = art.indexed!.tiles.module;
  const alignment = { light: moduleTile[0]!, dark: moduleTile[Math.floor(scale / 2) * scale + Math.floor(scale / 2)]! };
  const cells = cellKinds(codes, layout, n, alignment.light !== alignment.dark);
  const codeEnd = offset + n * scale;
  const out = new DeflateTokens();
  const lastAt = new LastWritten(codes);
  const quiet = new SpanList();
  quiet.push(SOLID, 0, width, 0);
  const bands: Array<SpanList | undefined> = new Array(n);
  const bandsUnderLogo: Array<SpanList | undefined> = new Array(n);
  /** Rows written so far, by what their bytes depend on (a number), with where and their sums: an equal row is one copy. */
  const rows = new Map<number, number>();
  const rowAt: number[] = [];
  const rowSum: number[] = [];
  const rowWeighted: number[] = [];
  const at: TileRowsAt = { module: 0, finder: 0, logo: -1 };

  for (let y = 0; y < height; y++) {
    const inCode = y >= offset && y < codeEnd;
    const my = inCode ? Math.floor((y - offset) / scale) : -1;
    at.module = inCode ? y - offset - my * scale : 0;
    at.finder = inCode && (my < 7 || my >= n - 7) ? (my < 7 ? my : my - (n - 7)) * scale + at.module : -1;
    at.logo = codes.logo && y >= logoBox.top && y < logoBox.top + logoBox.side ? y - logoBox.top : -1;
    const key =
      y >= size
        ? -2 - codes.band!.source[y - size]!
        : (((my + 1) * 4096 + (inCode ? codes.module.source[at.module]! : 0)) * 16384 + (at.finder < 0 ? 0 : codes.finder.source[at.finder]! + 1)) * 8192 +
          (at.logo < 0 ? 0 : codes.logo!.source[at.logo]! + 1);
    const rowStart = out.position;
    const seen = rows.get(key);
    if (seen !== undefined && rowStart - rowAt[seen]! <= DEFLATE_WINDOW) {
      out.copy(stride, rowStart - rowAt[seen]!);
      out.addSums(rowSum[seen]!, rowWeighted[seen]!, stride);
      rowAt[seen] = rowStart;
      continue;
    }
    out.literal(0); // filter None
    const sums = new RowSums();
    sums.append(0, 0, 1);
    if (y >= size) {
      const band = codes.band!;
      const r = y - size;
      replayTokens(out, band.tokens(r, r > 0));
      sums.append(band.sum[r]!, band.weighted[r]!, width);
    } else {
      let spans = inCode ? (bands[my] ??= bandSpans(matrix, layout, cells, alignment, my)) : quiet;
      if (at.logo >= 0)
        spans = inCode ? (bandsUnderLogo[my] ??= spans.withLogo(logoBox.left, logoBox.side, scale)) : quiet.withLogo(logoBox.left, logoBox.side, scale);
      // The row above lies the same way when it is this module row's too, with the logo on both or on neither.
      const above = inCode && at.module > 0 && (at.logo > 0 || (at.logo < 0 && !(y - 1 >= logoBox.top && y - 1 < logoBox.top + logoBox.side && codes.logo)));
      writeSpans(out, spans, codes, lastAt, at, above, layout, sums);
    }
    out.addSums(sums.sum, sums.weighted, stride);
    rows.set(key, rowAt.length);
    rowAt.push(rowStart);
    rowSum.push(sums.sum);
    rowWeighted.push(sums.weighted);
  }
  const stream = out.finish(codes.code);
  codes.code ??= out.code;
  return stream;
}
