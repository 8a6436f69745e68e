// The scan guarantee: decodes a design's pixels with ZXing (zxing-wasm, in process) and says whether they read back the payload.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader';

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

/**
 * Strict on purpose: no rotation, inversion or "try harder" — a design passes only if a plain, upright
 * read of our own pixels gives back exactly the payload's bytes, leaving phones' cameras their own slack.
 */
export async function decodesTo(rgba: Uint8Array, width: number, height: number, payload: string): Promise<boolean> {
  const image = { data: new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.byteLength), width, height, colorSpace: 'srgb' as const };
  const results = await readBarcodes(image as unknown as ImageData, {
    formats: ['QRCode'],
    tryHarder: false,
    tryRotate: false,
    tryInvert: false,
    maxNumberOfSymbols: 1,
  });
  const expected = Buffer.from(payload, 'utf8');
  return results.some((result) => result.isValid && Buffer.from(result.bytes).equals(expected));
}
