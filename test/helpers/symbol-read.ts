// The version and error correction level of a QR code as other readers report them: jsQR's version, ZXing's EC level.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import jsQRModule from 'jsqr';
import sharp from 'sharp';
import { toPng, type ImageFormat } from './decode.js';

const run = promisify(execFile);
// jsqr is CommonJS typed as an ES module: under NodeNext its default import is the function itself.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

export interface SymbolRead {
  /** jsQR's `version` (1–40), from the symbol's size and version blocks. */
  version: number | undefined;
  /** ZXingReader's `EC Level:` line, from the format information. */
  errorCorrection: string | undefined;
}

async function readOne(png: string): Promise<SymbolRead> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const version = jsQR(
    new Uint8ClampedArray(data.buffer, data.byteOffset, data.length),
    info.width,
    info.height,
  )?.version;
  const { stdout } = await run('ZXingReader', ['-format', 'QRCode', png]).catch(() => ({ stdout: '' }));
  const level = /^EC Level:\s+([LMQH])$/m.exec(stdout)?.[1];
  return { version, errorCorrection: level };
}

/** Each image's symbol as jsQR and ZXing read it (WebP and SVG converted by libwebp and librsvg first). */
export async function readSymbols(
  images: ReadonlyArray<{ bytes: Uint8Array; format: ImageFormat }>,
): Promise<SymbolRead[]> {
  const dir = await mkdtemp(join(tmpdir(), 'qrm-symbol-'));
  try {
    const pngs = await Promise.all(images.map(({ bytes, format }, i) => toPng(dir, `image-${i}`, bytes, format)));
    const out: SymbolRead[] = [];
    for (const png of pngs) out.push(await readOne(png));
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
