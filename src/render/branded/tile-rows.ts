// A design's tiles row by row as the deflate writer needs them: which rows repeat, their byte sums (for Adler-32), and
// each row's own tokens.
import { MIN_COPY } from '../deflate/deflate-tokens.js';

/**
 * A tile (module, finder, logo or caption band) row by row as the encoder keeps it: each row's first identical row,
 * sums, tokens.
 */
export class TileRows {
  /** Each row's first identical row in the tile: rows with one source are the same bytes. */
  readonly source: Int32Array;
  /**
   * Per row: the sum of its bytes, and of each byte times its distance from the row's end (see DeflateTokens.addSums).
   */
  readonly sum: Float64Array;
  readonly weighted: Float64Array;
  /** Per row: its last pixel (a palette index, or packed RGBA as pixels.ts packs it). */
  readonly last: Float64Array;
  readonly #tokens: Array<Uint32Array | undefined>;
  readonly #tokensUnderAbove: Array<Uint32Array | undefined>;

  constructor(
    readonly bytes: Uint8Array,
    /** Bytes a row. */
    readonly width: number,
    /** Distance from a byte to the one above it in the image (a scanline and its filter byte). */
    readonly stride: number,
    /** Bytes a pixel: 1 (palette) or 4 (RGBA). */
    readonly pixelBytes: number,
    /** Told the bytes of each token list kept (see DesignRowCodes.kept). */
    readonly kept: (bytes: number) => void,
  ) {
    const rows = bytes.length / width;
    this.source = firstIdenticalRows(bytes, width);
    this.sum = new Float64Array(rows);
    this.weighted = new Float64Array(rows);
    this.last = new Float64Array(rows);
    for (let r = 0; r < rows; r++) {
      for (let i = 0, at = r * width; i < width; i++, at++) {
        this.sum[r]! += bytes[at]!;
        this.weighted[r]! += (width - i) * bytes[at]!;
      }
      this.last[r] = pixelAt(bytes, (r + 1) * width - pixelBytes, pixelBytes);
    }
    this.#tokens = new Array(rows);
    this.#tokensUnderAbove = new Array(rows);
    kept(this.source.byteLength + this.sum.byteLength + this.weighted.byteLength + this.last.byteLength);
  }

  row(r: number): Uint8Array {
    return this.bytes.subarray(r * this.width, (r + 1) * this.width);
  }

  /**
   * Row r's tokens; `underAbove`: the image row above holds row r - 1 of this tile at the same place, so they may copy
   * from it.
   */
  tokens(r: number, underAbove: boolean): Uint32Array {
    if (underAbove && r > 0)
      return (this.#tokensUnderAbove[r] ??= this.#keep(
        tokensOf(this.row(r), this.row(r - 1), this.stride, this.pixelBytes),
      ));
    return (this.#tokens[r] ??= this.#keep(tokensOf(this.row(r), undefined, this.stride, this.pixelBytes)));
  }

  #keep(tokens: Uint32Array): Uint32Array {
    this.kept(tokens.byteLength);
    return tokens;
  }
}

/** The pixel whose first byte is at `at`: the byte itself, or 4 bytes as one packed RGBA number (r lowest). */
export function pixelAt(bytes: Uint8Array, at: number, pixelBytes: number): number {
  if (pixelBytes === 1) return bytes[at]!;
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
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
 * row above at `stride`: spans equal to the row above, runs of one pixel, literals. Position-free, so one list serves
 * wherever the row is drawn.
 */
function tokensOf(bytes: Uint8Array, above: Uint8Array | undefined, stride: number, pixelBytes: number): Uint32Array {
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
    if (i >= pixelBytes) while (i + run < bytes.length && bytes[i + run] === bytes[i + run - pixelBytes]) run++;
    if (run >= MIN_COPY) {
      tokens.push(((run << 16) | pixelBytes) >>> 0);
      i += run;
      continue;
    }
    tokens.push(bytes[i++]!);
  }
  return Uint32Array.from(tokens);
}

/** The sums of one row being written (see DeflateTokens.addSums): appended run by run. */
export class RowSums {
  sum = 0;
  weighted = 0;

  append(sum: number, weighted: number, length: number): void {
    this.weighted += length * this.sum + weighted;
    this.sum += sum;
  }

  /** The same bytes `times` over: each copy's sum counts once for every byte after it. */
  appendTimes(sum: number, weighted: number, length: number, times: number): void {
    this.weighted += times * length * this.sum + times * weighted + (sum * length * times * (times - 1)) / 2;
    this.sum += times * sum;
  }

  reset(): void {
    this.sum = 0;
    this.weighted = 0;
  }
}
