// Reads the QR codes in an image: zxing-wasm on it all, then zbar and jsQR on scaled-down regions, within a time
// budget.
import type { DecodedCode, DecodeOutcome, DecodeReader } from '../domain/ports/qr-decoder.js';
import { bytesSpell, jsqrText, loadDecoder, zbarCodes, type RgbaImage, type ZbarReader } from './branded/scan-check.js';
import {
  JSQR_WHOLE_IMAGE_MAX_PIXELS,
  regionAround,
  SLOW_READER_MAX_PIXELS,
  wholeImage,
  type Region,
} from './decode-regions.js';
import { loadReaders, loadSharp, loadZxingReader } from './imaging-libraries.js';

const LEVELS = new Set(['L', 'M', 'Q', 'H']);

export interface DecodeBudget {
  /** Time the slow readers may start within, from the start of the decode; one not started by then is skipped. */
  budgetMs: number;
  /** Milliseconds, monotonic; tests drive it. */
  now?: () => number;
}

/** One image for a decode thread; the budget counts from when the thread takes it. */
export interface DecodeTask {
  image: Uint8Array;
  maxPixels: number;
  budgetMs: number;
}

/** Pixels as RGBA, EXIF orientation applied; refused before decoding when the header declares more than `maxPixels`. */
async function pixelsOf(image: Uint8Array, maxPixels: number): Promise<RgbaImage | DecodeOutcome> {
  try {
    const { data, info } = await loadSharp()(image, { limitInputPixels: maxPixels })
      .rotate()
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { rgba: data, width: info.width, height: info.height };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/pixel limit/i.test(message))
      return { ok: false, reason: 'too_many_pixels', detail: `the image has more than ${maxPixels} pixels` };
    return { ok: false, reason: 'unreadable_image', detail: 'the body is not a readable PNG, JPEG or WebP image' };
  }
}

/** A region as the slow readers see it: cut out and scaled down by sharp (never the full 16 megapixels). */
async function pixelsIn(pixels: RgbaImage, region: Region): Promise<RgbaImage> {
  const whole = region.width === pixels.width && region.height === pixels.height;
  if (whole && region.scaledWidth === pixels.width && region.scaledHeight === pixels.height) return pixels;
  let image = loadSharp()(pixels.rgba, { raw: { width: pixels.width, height: pixels.height, channels: 4 } });
  if (!whole) image = image.extract({ left: region.left, top: region.top, width: region.width, height: region.height });
  const { data, info } = await image
    .resize(region.scaledWidth, region.scaledHeight, { fit: 'fill' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { rgba: data, width: info.width, height: info.height };
}

/**
 * ZXing reads the whole image (its own pyramid: tolerant of rotation, inversion, small or soft codes, and quick even on
 * 16 megapixels). zbar and jsQR, far slower on large images, each read the region around every code ZXing found (or,
 * when it found none, the whole image) scaled down to what a code needs; each starts only while the budget lasts.
 * `zbarReader` is the thread's own (the decode thread's entry keeps one).
 */
export async function decodeImage(
  image: Uint8Array,
  maxPixels: number,
  budget: DecodeBudget,
  zbarReader: ZbarReader,
): Promise<DecodeOutcome> {
  // The readers' libraries load on a thread's first image, outside the budget: it is for reading, not loading.
  loadReaders();
  const now = budget.now ?? (() => performance.now());
  const deadline = now() + budget.budgetMs;
  const pixels = await pixelsOf(image, maxPixels);
  if ('ok' in pixels) return pixels;
  const { rgba, width, height } = pixels;
  await loadDecoder(zbarReader);
  const data = {
    data: new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.byteLength),
    width,
    height,
    colorSpace: 'srgb' as const,
  };
  // Tolerant, unlike the design check: a photo may be rotated, inverted, small or soft.
  const found = (
    await loadZxingReader().readBarcodes(data as unknown as ImageData, {
      formats: ['QRCode'],
      tryHarder: true,
      tryRotate: true,
      tryInvert: true,
      tryDownscale: true,
      maxNumberOfSymbols: 8,
    })
  ).filter((result) => result.isValid);
  const readersRan: DecodeReader[] = ['zxing'];
  const readersSkipped: DecodeReader[] = [];
  // Around each code ZXing found; else the whole image, scaled to what each reader can afford.
  const codeRegions = found.map((result) =>
    regionAround(result.position, Number.parseInt(result.version, 10), width, height),
  );
  const views = new Map<Region, Promise<RgbaImage>>();
  const view = (region: Region) => views.get(region) ?? views.set(region, pixelsIn(pixels, region)).get(region)!;
  /** What a reader read in each region, or undefined when the budget had run out before it started. */
  const readEach = async <T>(
    reader: DecodeReader,
    wholeMaxPixels: number,
    read: (region: RgbaImage) => T | Promise<T>,
  ): Promise<T[] | undefined> => {
    if (now() >= deadline) {
      readersSkipped.push(reader);
      return undefined;
    }
    readersRan.push(reader);
    const regions = codeRegions.length > 0 ? codeRegions : [wholeImage(width, height, wholeMaxPixels)];
    const results: T[] = [];
    for (const region of regions) results.push(await read(await view(region)));
    return results;
  };
  const zbar = await readEach('zbar', SLOW_READER_MAX_PIXELS, (region) => zbarCodes(zbarReader, region));
  const jsqr = await readEach('jsqr', JSQR_WHOLE_IMAGE_MAX_PIXELS, (region) => jsqrText(region) ?? null);
  const codes: DecodedCode[] = found.map((result, i) => {
    const zbarHere = zbar?.[i] ?? [];
    const jsqrHere = jsqr?.[i] ?? null;
    // zbar gives bytes: credited when they spell the code's text; else, one code each, shown as UTF-8 (zbar's reading).
    const zbarText = zbarHere.some((bytes) => bytesSpell(bytes, result.text))
      ? result.text
      : found.length === 1 && zbarHere.length === 1
        ? zbarHere[0]!.toString('utf8')
        : null;
    return {
      text: result.text,
      version: Number.parseInt(result.version, 10) || null,
      errorCorrection: LEVELS.has(result.ecLevel) ? (result.ecLevel as DecodedCode['errorCorrection']) : null,
      // jsQR reads one code per region: credited to the code it was cut around when it read its text, or the only code.
      readers: {
        zxing: result.text,
        zbar: zbarText,
        jsqr: jsqrHere !== null && (jsqrHere === result.text || found.length === 1) ? jsqrHere : null,
      },
    };
  });
  if (found.length === 0) {
    const zbarText = zbar?.[0]?.[0]?.toString('utf8') ?? null;
    const jsqrRead = jsqr?.[0] ?? null;
    if (zbarText !== null || jsqrRead !== null)
      codes.push({
        text: (jsqrRead ?? zbarText)!,
        version: null,
        errorCorrection: null,
        readers: { zxing: null, zbar: zbarText, jsqr: jsqrRead },
      });
  }
  return { ok: true, codes, readersRan, readersSkipped };
}
