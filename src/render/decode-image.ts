// Reads the QR codes in an image with zxing-wasm (every code, tolerant of photos), zbar and jsQR, and says what each read.
import sharp from 'sharp';
import type { DecodedCode, DecodeOutcome } from '../domain/ports/qr-decoder.js';
import { bytesSpell, jsqrText, loadDecoder, zbarCodes } from './branded/scan-check.js';
import { readBarcodes } from 'zxing-wasm/reader';

const LEVELS = new Set(['L', 'M', 'Q', 'H']);

/** Pixels as RGBA, EXIF orientation applied; refused before decoding when the header declares more than `maxPixels`. */
async function pixelsOf(image: Uint8Array, maxPixels: number): Promise<{ rgba: Uint8Array; width: number; height: number } | DecodeOutcome> {
  try {
    const { data, info } = await sharp(image, { limitInputPixels: maxPixels }).rotate().ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    return { rgba: data, width: info.width, height: info.height };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/pixel limit/i.test(message)) return { ok: false, reason: 'too_many_pixels', detail: `the image has more than ${maxPixels} pixels` };
    return { ok: false, reason: 'unreadable_image', detail: 'the body is not a readable PNG, JPEG or WebP image' };
  }
}

export async function decodeImage(image: Uint8Array, maxPixels: number): Promise<DecodeOutcome> {
  const pixels = await pixelsOf(image, maxPixels);
  if ('ok' in pixels) return pixels;
  const { rgba, width, height } = pixels;
  await loadDecoder();
  const data = { data: new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.byteLength), width, height, colorSpace: 'srgb' as const };
  // Tolerant, unlike the design check: a photo may be rotated, inverted, small or soft.
  const found = (
    await readBarcodes(data as unknown as ImageData, {
      formats: ['QRCode'],
      tryHarder: true,
      tryRotate: true,
      tryInvert: true,
      tryDownscale: true,
      maxNumberOfSymbols: 8,
    })
  ).filter((result) => result.isValid);
  const jsqr = jsqrText(rgba, width, height) ?? null;
  const zbar = await zbarCodes(rgba, width, height);
  // zbar gives bytes: credited to the code whose text they spell; else, with one code each, shown as UTF-8 (zbar's own reading).
  const zbarFor = (text: string) =>
    zbar.some((bytes) => bytesSpell(bytes, text)) ? text : found.length === 1 && zbar.length === 1 ? zbar[0]!.toString('utf8') : null;
  const codes: DecodedCode[] = found.map((result) => ({
    text: result.text,
    version: Number.parseInt(result.version, 10) || null,
    errorCorrection: LEVELS.has(result.ecLevel) ? (result.ecLevel as DecodedCode['errorCorrection']) : null,
    // jsQR reads one code per image: it is credited to the code whose text it read, else to the first.
    readers: { zxing: result.text, zbar: zbarFor(result.text), jsqr: jsqr !== null && (jsqr === result.text || found.length === 1) ? jsqr : null },
  }));
  if (codes.length === 0 && (jsqr !== null || zbar.length > 0)) {
    const zbarText = zbar[0]?.toString('utf8') ?? null;
    codes.push({ text: (jsqr ?? zbarText)!, version: null, errorCorrection: null, readers: { zxing: null, zbar: zbarText, jsqr } });
  }
  return { ok: true, codes };
}
