// The scan guarantee: decodes a design's pixels with two independent decoders in process (zxing-wasm and jsQR) and says whether both read back the payload.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import jsQRModule from 'jsqr';
import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader';

// jsqr is CommonJS typed as an ES module: under NodeNext its default import is the function itself.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

/**
 * zxing-wasm fetches its .wasm from a CDN unless handed the binary: it is read from the installed
 * package instead, so the check never touches the network. The library keeps the module once per thread;
 * DesignCaches calls this once before the first check.
 */
export async function loadDecoder(): Promise<void> {
  const wasm = readFileSync(createRequire(import.meta.url).resolve('zxing-wasm/reader/zxing_reader.wasm'));
  const wasmBinary = wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer;
  await prepareZXingModule({ overrides: { wasmBinary }, equalityFn: () => true, fireImmediately: true });
}

/** What zxing-wasm reads, strictly: no rotation, inversion or "try harder", leaving phones' cameras their own slack. */
export async function zxingText(rgba: Uint8Array, width: number, height: number): Promise<string | undefined> {
  const image = { data: new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.byteLength), width, height, colorSpace: 'srgb' as const };
  const results = await readBarcodes(image as unknown as ImageData, {
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
export function jsqrText(rgba: Uint8Array, width: number, height: number): string | undefined {
  return jsQR(new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.byteLength), width, height, { inversionAttempts: 'dontInvert' })?.data;
}

/** A design passes only if both decoders give back exactly the payload's text from our own pixels. */
export async function decodesTo(rgba: Uint8Array, width: number, height: number, payload: string): Promise<boolean> {
  if ((await zxingText(rgba, width, height)) !== payload) return false;
  return jsqrText(rgba, width, height) === payload;
}
