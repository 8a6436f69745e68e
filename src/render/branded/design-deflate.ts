// A design's PNG scanlines (palette indices, or RGBA past 256 colours) deflated from how they are drawn (tile rows at
// known places), never from pixels: the PNG path of a render whose scan verdict is known.
import { DEFLATE_WINDOW, DeflateTokens, MIN_COPY, type DeflateCode } from '../deflate/deflate-tokens.js';
import type { QrMatrix } from '../qr-matrix.js';
import type { DesignLayout } from './design-layout.js';
import type { DesignArt } from './design-raster.js';
import { bandSpans, cellKinds, FINDER, FINDER_PART, LOGO, MODULE_PART, MODULES, SOLID, SpanList } from './row-spans.js';
import { pixelAt, RowSums, TileRows } from './tile-rows.js';

/**
 * Why by hand: zlib spends most of a branded PNG render matching bytes whose repeats the
 * drawing already knows: a row equal to one drawn a few rows up, a module's tile row equal to the one drawn beside it,
 * a span equal to the row above, a run of one colour. Tokens here come from those places, a handful a row; each tile
 * row's own tokens and byte sums are worked out once per design and kept in the art, and no raster is drawn.
 * bench/branded-render.ts (pngWriterBench) runs both writers turn about on the bench row's design; the figures, and
 * why zlib's higher levels are not the answer, are in docs/decisions/design-deflate.md.
 */

/** What the encoder keeps of a design's art (in the art itself: per thread, per design and layout). */
export interface DesignRowCodes {
  /** 1: the art's palette indices (PNG colour type 3); 4: its RGBA pixels (colour type 6). */
  pixelBytes: number;
  /** The light colour as spans hold it: index 0, or the packed colour. */
  light: number;
  module: TileRows;
  finder: TileRows;
  logo?: TileRows | undefined;
  band?: TileRows | undefined;
  /**
   * Per symbol size, what each module is: drawn one by one, reserved (finder, cleared square), or an alignment
   * square's.
   */
  cells: Map<number, Uint8Array>;
  /** The Huffman code of the design's first image: the next ones are written under it, with no counting. */
  code?: DeflateCode | undefined;
  /**
   * Bytes kept here so far (tile rows' sums, their token lists as first used): DesignCaches counts them in the art's
   * size.
   */
  kept: { bytes: number };
  /** Span lists reused between renders: one per module row, one per module row under the logo, and the quiet zone's. */
  spans: { rows: SpanList[]; underLogo: SpanList[]; quiet: SpanList; quietUnderLogo: SpanList; renders: number };
}

const bytesOf = (tile: Uint8Array | Uint32Array) => new Uint8Array(tile.buffer, tile.byteOffset, tile.byteLength);

function rowCodes(art: DesignArt, layout: DesignLayout): DesignRowCodes {
  if (art.rowCodes) return art.rowCodes;
  // Packed RGBA is r, g, b, a in memory order (pixels.ts): the bytes of a colour-type-6 scanline as they stand.
  const tiles = art.indexed?.tiles ?? art.rgba;
  const pixelBytes = art.indexed ? 1 : 4;
  const stride = layout.side * pixelBytes + 1;
  const kept = { bytes: 0 };
  const keep = (bytes: number) => (kept.bytes += bytes);
  const rows = (tile: Uint8Array | Uint32Array, pixels: number) =>
    new TileRows(bytesOf(tile), pixels * pixelBytes, stride, pixelBytes, keep);
  return (art.rowCodes = {
    kept,
    pixelBytes,
    light: art.indexed ? 0 : art.light,
    module: rows(tiles.module, layout.scale),
    finder: rows(tiles.finder, 7 * layout.scale),
    logo: tiles.logo && rows(tiles.logo, layout.logoBox.side),
    band: tiles.band && rows(tiles.band, layout.side),
    cells: new Map(),
    spans: { rows: [], underLogo: [], quiet: new SpanList(kept), quietUnderLogo: new SpanList(kept), renders: 0 },
  });
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

/** A tile row's own tokens (see tokensOf) into the stream. */
function replayTokens(out: DeflateTokens, tokens: Uint32Array): void {
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token < 256) out.literal(token);
    else out.copy(token >>> 16, token & 0xffff);
  }
}

/**
 * A whole tile row: a copy of where the same bytes were last written, if that is in the window, else its own tokens.
 */
function writeTileRow(
  out: DeflateTokens,
  tiles: TileRows,
  lastAt: Float64Array,
  row: number,
  underAbove: boolean,
  sums: RowSums,
): number {
  const source = tiles.source[row]!;
  const at = out.position;
  if (tiles.width >= MIN_COPY && at - lastAt[source]! <= DEFLATE_WINDOW) out.copy(tiles.width, at - lastAt[source]!);
  else replayTokens(out, tiles.tokens(row, underAbove));
  lastAt[source] = at;
  sums.append(tiles.sum[source]!, tiles.weighted[source]!, tiles.width);
  return tiles.last[source]!;
}

/** The sums of one pixel value repeated `length` times (see DeflateTokens.addSums), byte by byte of the pixel. */
function appendRun(sums: RowSums, value: number, length: number, pixelBytes: number): void {
  if (pixelBytes === 1) return sums.append(value * length, (value * length * (length + 1)) / 2, length);
  let sum = 0;
  let weighted = 0;
  for (let j = 0; j < pixelBytes; j++) {
    const byte = (value >>> (8 * j)) & 0xff;
    sum += byte * length;
    weighted += byte * ((pixelBytes * length * (length + 1)) / 2 - j * length);
  }
  sums.append(sum, weighted, length * pixelBytes);
}

/** One pixel value, `length` times, after the pixel `previous` (-1: none): a run copied from the pixel before it. */
function writeSolid(
  out: DeflateTokens,
  value: number,
  length: number,
  previous: number,
  sums: RowSums,
  pixelBytes: number,
): void {
  const bytes = length * pixelBytes;
  if (previous === value && bytes >= MIN_COPY) out.copy(bytes, pixelBytes);
  else {
    const pixels = bytes - pixelBytes >= MIN_COPY ? 1 : length;
    for (let k = 0; k < pixels; k++) for (let j = 0; j < pixelBytes; j++) out.literal((value >>> (8 * j)) & 0xff);
    if (pixels === 1 && length > 1) out.copy(bytes - pixelBytes, pixelBytes);
  }
  appendRun(sums, value, length, pixelBytes);
}

/**
 * Part of a tile row (cut by the logo's box), `from` and `length` in pixels: its bytes as literals; returns its last
 * pixel.
 */
function writePart(
  out: DeflateTokens,
  tiles: TileRows,
  row: number,
  from: number,
  length: number,
  sums: RowSums,
): number {
  const bytes = tiles.row(row);
  const start = from * tiles.pixelBytes;
  const end = (from + length) * tiles.pixelBytes;
  for (let i = start; i < end; i++) {
    out.literal(bytes[i]!);
    sums.append(bytes[i]!, bytes[i]!, 1);
  }
  return pixelAt(bytes, end - tiles.pixelBytes, tiles.pixelBytes);
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
  /** Bytes from a scanline to the next. */
  stride: number,
  sums: RowSums,
): void {
  const { module, finder, logo, pixelBytes } = codes;
  const moduleSame = above && module.source[at.module] === module.source[at.module - 1];
  const finderSame = above && at.finder > 0 && finder.source[at.finder] === finder.source[at.finder - 1];
  const logoSame = above && at.logo > 0 && logo!.source[at.logo] === logo!.source[at.logo - 1];
  const data = spans.data;
  // The pixel before the next span: the filter byte 0 reads as palette index 0, and as no RGBA pixel.
  let previous = pixelBytes === 1 ? 0 : -1;
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
    if (same && (pending > 0 || length * pixelBytes >= MIN_COPY)) {
      pending += length * pixelBytes;
      previous = appendSums(sums, codes, at, kind, length, value);
      continue;
    }
    if (pending > 0) out.copy(pending, stride);
    pending = 0;
    if (kind === SOLID) {
      writeSolid(out, value, length, previous, sums, pixelBytes);
      previous = value;
    } else if (kind === MODULES) {
      previous = writeTileRow(out, module, lastAt.module, at.module, false, sums);
      if (value === 1) continue;
      if ((value - 1) * module.width < MIN_COPY) {
        // Too short for a copy (modules 1 or 2 px wide): each module's row again.
        for (let k = 1; k < value; k++) writeTileRow(out, module, lastAt.module, at.module, false, sums);
        continue;
      }
      // The rest of the run repeats the tile row every `scale` pixels: one copy.
      out.copy((value - 1) * module.width, module.width);
      const source = module.source[at.module]!;
      sums.appendTimes(module.sum[source]!, module.weighted[source]!, module.width, value - 1);
      lastAt.module[source] = out.position - module.width;
    } else if (kind === FINDER) previous = writeTileRow(out, finder, lastAt.finder, at.finder, false, sums);
    else if (kind === LOGO) previous = writeTileRow(out, logo!, lastAt.logo, at.logo, true, sums);
    else if (kind === MODULE_PART) previous = writePart(out, module, at.module, value, length, sums);
    else previous = writePart(out, finder, at.finder, value, length, sums);
  }
  if (pending > 0) out.copy(pending, stride);
}

/** A span's sums added without writing it (it is copied from the row above); returns its last byte. */
function appendSums(
  sums: RowSums,
  codes: DesignRowCodes,
  at: TileRowsAt,
  kind: number,
  length: number,
  value: number,
): number {
  if (kind === SOLID) {
    appendRun(sums, value, length, codes.pixelBytes);
    return value;
  }
  const [tiles, row] =
    kind === MODULES || kind === MODULE_PART
      ? [codes.module, at.module]
      : kind === LOGO
        ? [codes.logo!, at.logo]
        : [codes.finder, at.finder];
  const source = tiles.source[row]!;
  if (kind === MODULE_PART || kind === FINDER_PART) {
    const bytes = tiles.row(source);
    const end = (value + length) * tiles.pixelBytes;
    for (let i = value * tiles.pixelBytes; i < end; i++) sums.append(bytes[i]!, bytes[i]!, 1);
    return pixelAt(bytes, end - tiles.pixelBytes, tiles.pixelBytes);
  }
  sums.appendTimes(tiles.sum[source]!, tiles.weighted[source]!, tiles.width, kind === MODULES ? value : 1);
  return tiles.last[source]!;
}

/**
 * The zlib stream of the design's PNG scanlines (each a filter byte 0, None, then palette indices or RGBA), as
 * rasterDesign
 * draws them: quiet zone, modules (a module tile row under each dark module), alignment squares, finders, the logo
 * over all of it, the caption band below. test/unit/design-deflate.test.ts holds the two equal, pixel for pixel.
 */
export function deflateDesign(art: DesignArt, matrix: QrMatrix, layout: DesignLayout, size: number): Uint8Array {
  const codes = rowCodes(art, layout);
  const { side: width, height, scale, offset, logoBox } = layout;
  const n = matrix.size;
  const stride = width * codes.pixelBytes + 1;
  // Alignment squares in the dark and light colours, as squareAlignmentPatterns draws them.
  const colours = { light: codes.light, dark: (art.indexed?.tiles ?? art.rgba).dark[0]!, background: codes.light };
  const cells = cellKinds(codes.cells, layout, n, art.squareAlignment);
  const codeEnd = offset + n * scale;
  const out = new DeflateTokens();
  const lastAt = new LastWritten(codes);
  const lists = codes.spans;
  const render = ++lists.renders;
  const quiet = lists.quiet;
  quiet.count = 0;
  quiet.push(SOLID, 0, width, codes.light);
  /** Module row my's spans (with the logo's row in them, `underLogo`), made once this render. */
  const bandList = (my: number, underLogo: boolean): SpanList => {
    const list = (lists.rows[my] ??= new SpanList(codes.kept));
    if (list.madeFor !== render) bandSpans(list, matrix, layout, cells, colours, my).madeFor = render;
    if (!underLogo) return list;
    const cut = (lists.underLogo[my] ??= new SpanList(codes.kept));
    if (cut.madeFor !== render) list.withLogo(cut, logoBox.left, logoBox.side, scale).madeFor = render;
    return cut;
  };
  /**
   * Rows written so far, by what their bytes depend on (a number), with where and their sums: an equal row is one copy.
   */
  const rows = new Map<number, number>();
  const rowAt: number[] = [];
  const rowSum: number[] = [];
  const rowWeighted: number[] = [];
  const at: TileRowsAt = { module: 0, finder: 0, logo: -1 };
  /** Image row y's row of the logo, or -1. */
  const logoRowAt = (y: number) =>
    codes.logo && y >= logoBox.top && y < logoBox.top + logoBox.side ? y - logoBox.top : -1;
  const sums = new RowSums();

  for (let y = 0; y < height; y++) {
    const inCode = y >= offset && y < codeEnd;
    const my = inCode ? Math.floor((y - offset) / scale) : -1;
    at.module = inCode ? y - offset - my * scale : 0;
    at.finder = inCode && (my < 7 || my >= n - 7) ? (my < 7 ? my : my - (n - 7)) * scale + at.module : -1;
    at.logo = logoRowAt(y);
    const key =
      y >= size
        ? -2 - codes.band!.source[y - size]!
        : (((my + 1) * 4096 + (inCode ? codes.module.source[at.module]! : 0)) * 16384 +
            (at.finder < 0 ? 0 : codes.finder.source[at.finder]! + 1)) *
            8192 +
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
    sums.reset();
    sums.append(0, 0, 1);
    if (y >= size) {
      const band = codes.band!;
      const r = y - size;
      replayTokens(out, band.tokens(r, r > 0));
      sums.append(band.sum[r]!, band.weighted[r]!, band.width);
    } else {
      const spans = inCode
        ? bandList(my, at.logo >= 0)
        : at.logo >= 0
          ? quiet.withLogo(lists.quietUnderLogo, logoBox.left, logoBox.side, scale)
          : quiet;
      // The row above lies the same way when it is this module row's too, with the logo on both or on neither.
      const above = inCode && at.module > 0 && logoRowAt(y - 1) >= 0 === at.logo >= 0;
      writeSpans(out, spans, codes, lastAt, at, above, stride, sums);
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
