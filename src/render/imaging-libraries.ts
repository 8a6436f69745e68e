// The imaging libraries, each loaded on its first use (synchronously, through Node's module cache) rather than with
// the server: a process that has drawn no design, read no upload and normalised no logo has not paid for them.
import { createRequire } from 'node:module';
import type * as ZBar from '@undecaf/zbar-wasm';
import type JsQR from 'jsqr';
import type Sharp from 'sharp';
import type * as ZXingReader from 'zxing-wasm/reader';

const load = createRequire(import.meta.url);

export function loadSharp(): typeof Sharp {
  return load('sharp') as typeof Sharp;
}

/** zxing-wasm's reader; every caller goes through here, so the module it was prepared in is the one that reads. */
export function loadZxingReader(): typeof ZXingReader {
  return load('zxing-wasm/reader') as typeof ZXingReader;
}

export function loadZbar(): typeof ZBar {
  return load('@undecaf/zbar-wasm') as typeof ZBar;
}

/** jsqr is CommonJS typed as an ES module: what it exports is the function itself. */
export function loadJsQR(): typeof JsQR.default {
  return load('jsqr') as typeof JsQR.default;
}

/** Every library an image read uses, loaded now. */
export function loadReaders(): void {
  loadSharp();
  loadZxingReader();
  loadZbar();
  loadJsQR();
}
