// Decodes a generated image with two independent real decoders (zbar and ZXing-cpp) and returns what each read.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { renderImage } from '../../src/render/render-image.js';

const run = promisify(execFile);

export type ImageFormat = 'png' | 'webp' | 'svg';

export interface Decoded {
  zbar: string;
  zxing: string;
}

/** WebP goes through libwebp's dwebp and SVG through librsvg, so our own code decodes nothing. */
async function toPng(dir: string, bytes: Uint8Array, format: ImageFormat): Promise<string> {
  const source = join(dir, `image.${format}`);
  await writeFile(source, bytes);
  if (format === 'png') return source;
  const png = join(dir, 'image.png');
  if (format === 'webp') await run('dwebp', ['-quiet', source, '-o', png]);
  else await run('rsvg-convert', ['--width', '512', '--height', '512', '--background-color', 'white', source, '-o', png]);
  return png;
}

// zbar's text mode guesses a charset for non-ASCII bytes (QR has no default UTF-8); binary mode gives the exact bytes.
async function zbar(png: string): Promise<string> {
  const { stdout } = await run('zbarimg', ['-q', '--nodbus', '--raw', '-Sbinary', png], { encoding: 'buffer' });
  return stdout.toString('utf8');
}

async function zxing(png: string): Promise<string> {
  const { stdout } = await run('ZXingReader', ['-format', 'QRCode', '-bytes', png], { encoding: 'buffer' });
  return stdout.toString('utf8');
}

export async function decodeQr(bytes: Uint8Array, format: ImageFormat): Promise<Decoded> {
  const dir = await mkdtemp(join(tmpdir(), 'qrm-decode-'));
  try {
    const png = await toPng(dir, bytes, format);
    const [zbarText, zxingText] = await Promise.all([zbar(png).catch(() => '<zbar found no code>'), zxing(png).catch(() => '<zxing found no code>')]);
    return { zbar: zbarText, zxing: zxingText };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs of a property test that decodes every case: two decoder processes a run, so far fewer than fast-check's default 100. */
export const DECODED_RUNS = 25;

/** Renders a payload as the service draws it (PNG, level L so long payloads fit, 1024 px) and reads it back with both decoders. */
export async function renderAndDecode(payload: string): Promise<Decoded> {
  const png = renderImage({ payload, format: 'png', size: 1024, margin: 4, errorCorrection: 'L', darkColor: '#000000ff', lightColor: '#ffffffff' });
  return decodeQr(png, 'png');
}
