// The scan guarantee: decodes a design's pixels with three independent decoders in process (zxing-wasm, zbar-wasm and
// jsQR) and says whether all read back the payload.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ZBarScanner } from '@undecaf/zbar-wasm';
import { loadJsQR, loadZbar, loadZxingReader } from '../imaging-libraries.js';

/**
 * zxing-wasm fetches its .wasm from a CDN unless handed the binary: it is read from the installed
 * package instead, so the check never touches the network. The library keeps the module once per thread;
 * DesignCaches calls this once before the first check.
 */
export async function loadDecoder(zbar: ZbarReader): Promise<void> {
  await zbar.scanner();
  const wasm = readFileSync(createRequire(import.meta.url).resolve('zxing-wasm/reader/zxing_reader.wasm'));
  const wasmBinary = wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer;
  await loadZxingReader().prepareZXingModule({
    overrides: { wasmBinary },
    equalityFn: () => true,
    fireImmediately: true,
  });
}

/** RGBA bytes, four a pixel, row after row, and the image's size: what each decoder reads. */
export interface RgbaImage {
  rgba: Uint8Array;
  width: number;
  height: number;
}

/** What zxing-wasm reads, strictly: no rotation, inversion or "try harder", leaving phones' cameras their own slack. */
export async function zxingText({ rgba, width, height }: RgbaImage): Promise<string | undefined> {
  const image = {
    data: new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.byteLength),
    width,
    height,
    colorSpace: 'srgb' as const,
  };
  const results = await loadZxingReader().readBarcodes(image as unknown as ImageData, {
    formats: ['QRCode'],
    tryHarder: false,
    tryRotate: false,
    tryInvert: false,
    maxNumberOfSymbols: 1,
  });
  const valid = results.find((result) => result.isValid);
  return valid?.text;
}

/** What jsQR reads (a different family: its own binariser, finder search and sampling; it reads byte mode as UTF-8). */
export function jsqrText({ rgba, width, height }: RgbaImage): string | undefined {
  return loadJsQR()(new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.byteLength), width, height, {
    inversionAttempts: 'dontInvert',
  })?.data;
}

/**
 * zbar set as the zbar tests run it (`zbarimg -Sdisable -Sqrcode.enable`): QR codes only; its .wasm is read from the
 * package. One per thread, owned by what reads there (DesignCaches, the decode thread's entry); made on first use.
 */
export class ZbarReader {
  #scanner: Promise<ZBarScanner> | undefined;

  scanner(): Promise<ZBarScanner> {
    this.#scanner ??= qrScanner();
    return this.#scanner;
  }
}

async function qrScanner(): Promise<ZBarScanner> {
  const { ZBarConfigType, ZBarScanner, ZBarSymbolType } = loadZbar();
  const created = await ZBarScanner.create();
  created.setConfig(ZBarSymbolType.ZBAR_NONE, ZBarConfigType.ZBAR_CFG_ENABLE, 0);
  created.setConfig(ZBarSymbolType.ZBAR_QRCODE, ZBarConfigType.ZBAR_CFG_ENABLE, 1);
  // The bytes as coded: this build's charset guess is not zbarimg's (it took UTF-8 holding "—" for Shift_JIS where
  // zbarimg, with glibc's iconv, reads it right), and which charset a zbar app shows is the charset policy's part.
  created.setConfig(ZBarSymbolType.ZBAR_QRCODE, ZBarConfigType.ZBAR_CFG_BINARY, 1);
  return created;
}

const SHIFT_JIS = new TextDecoder('shift_jis');

/**
 * The QR codes zbar (its WebAssembly build, the library zbarimg and many Linux and Android apps use) finds in an
 * image, as the bytes they carry (binary mode: no charset conversion).
 */
export async function zbarCodes(zbar: ZbarReader, { rgba, width, height }: RgbaImage): Promise<Buffer[]> {
  const symbols = await loadZbar().scanGrayBuffer(
    intensities(rgba).buffer as ArrayBuffer,
    width,
    height,
    await zbar.scanner(),
  );
  return symbols.map((symbol) => Buffer.from(symbol.data.buffer, symbol.data.byteOffset, symbol.data.byteLength));
}

/**
 * Grey levels as zbarimg sees them: ImageMagick's pixel intensity, Rec. 709 luma on the sRGB values. zbar-wasm's own
 * RGBA path weighs by Rec. 601 instead, and on coloured designs that made it disagree with zbarimg (2 of 40 navy on
 * yellow designs read by zbarimg and not by it); with these weights the two agreed on every image compared.
 */
function intensities(rgba: Uint8Array): Uint8Array {
  const grey = new Uint8Array(rgba.length / 4);
  for (let i = 0, p = 0; i < grey.length; i++, p += 4)
    grey[i] = (13937 * rgba[p]! + 46869 * rgba[p + 1]! + 4731 * rgba[p + 2]! + 32768) >> 16;
  return grey;
}

/** Whether a code's bytes are `text` in a charset the encoder writes: UTF-8, ISO-8859-1, or Kanji mode's Shift_JIS. */
export function bytesSpell(bytes: Buffer, text: string): boolean {
  return bytes.toString('utf8') === text || bytes.toString('latin1') === text || SHIFT_JIS.decode(bytes) === text;
}

/**
 * Whether zbar reads the payload. Reed–Solomon turns a misread module into no answer, never into other text, so
 * what this decides is whether zbar finds and samples the design; which charset a zbar app shows is the charset
 * policy's part (docs/charsets.md).
 */
export async function zbarReads(zbar: ZbarReader, image: RgbaImage, payload: string): Promise<boolean> {
  return (await zbarCodes(zbar, image)).some((bytes) => bytesSpell(bytes, payload));
}

/**
 * A design passes only if all three decoders give back exactly the payload's text from our own pixels (cheapest first).
 */
export async function decodesTo(zbar: ZbarReader, image: RgbaImage, payload: string): Promise<boolean> {
  if ((await zxingText(image)) !== payload) return false;
  if (!(await zbarReads(zbar, image, payload))) return false;
  return jsqrText(image) === payload;
}
